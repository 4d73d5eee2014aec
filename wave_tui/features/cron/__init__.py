"""Scheduled prompts: `CronCreate` / `CronDelete` / `CronList`, `/loop`, the jobs in `/tasks`."""
