"""`gpu-wizard` with no subcommand: the interactive wizard, or a headless run with --answers."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    if args.answers:
        from wizard.commands.headless import run_headless

        return run_headless(args)
    from wizard.app import run_app  # Textual loads only here, never for the other commands

    return run_app(args)
