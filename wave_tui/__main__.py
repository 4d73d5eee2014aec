from wave_tui.cli.main import main

raise SystemExit(main())
