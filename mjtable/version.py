"""``mjtable --version``: the installed package's version (from its metadata), one line on stdout."""

from __future__ import annotations

import argparse
import sys
from importlib import metadata


def version() -> str:
    """The ``mjtable`` distribution's version, or ``unknown`` when it is not installed (a bare checkout)."""
    try:
        return metadata.version("mjtable")
    except metadata.PackageNotFoundError:
        return "unknown"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(f"mjtable {version()}\n")
    return 0
