from wizard.cli import run

raise SystemExit(run())
