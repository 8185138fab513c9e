"""Child processes that do not outlive their parent (Linux): ``with_parent_death(cmd)`` wraps a command line.

``python -m mjtable.childproc CMD ...`` sets ``prctl(PR_SET_PDEATHSIG, SIGTERM)`` in a fresh, single-threaded
interpreter and then ``exec``s CMD, so the kernel sends CMD SIGTERM when the thread that started it ends: a
``mjtable demo`` killed with SIGKILL leaves no mosquitto or MCU simulator running.  (A ``preexec_fn`` would do the
same in the forked child of a threaded parent, which is not safe.)  Start such children from a thread that lives as
long as they should (the main thread).  Elsewhere than Linux the command runs unwrapped.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def with_parent_death(cmd: list[str]) -> list[str]:
    """``cmd`` wrapped so that it gets SIGTERM when its parent dies (unchanged off Linux)."""
    if not sys.platform.startswith("linux"):
        return cmd
    return [sys.executable, "-m", "mjtable.childproc", *cmd]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m mjtable.childproc CMD [ARGS...]", file=sys.stderr)
        return 2
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        return 1
    try:
        os.execvp(argv[0], argv)  # keeps the death signal (not a set-uid program); does not return
    except OSError as exc:
        print(f"cannot run {argv[0]}: {exc.strerror}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
