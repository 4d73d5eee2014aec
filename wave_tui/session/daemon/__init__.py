"""`wave daemon`: sessions without a UI, hosted by one process per user, that keep generating
after the client that started them went away (DM1–DM3)."""
