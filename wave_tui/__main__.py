"""`python -m wave_tui`: the same entry point as the `wave` command."""

from wave_tui.cli.main import main

raise SystemExit(main())
