"""`python -m q7.prepare [--native] [--quiet]` (python/q7/prepare.py runs
`main`): builds ahead what a first
custom_op.load builds before it compiles the op, q7's device SDK (about ten
seconds; with --native also the host SDKs `q7 run --native` links), into the
cache the q7 CLI shares ($Q7_CACHE_DIR, else $XDG_CACHE_HOME/q7, else
~/.cache/q7). It is built once per q7 version and compiler; installing q7
should run this (scripts/python-env.sh does). Without it, importing q7
starts the build in a background thread when the SDK is missing, and a load
that needs it first waits for it.
"""

import argparse
import os
import sys
import threading

from q7 import _q7

# Set while the background build runs (one per process).
_BACKGROUND = []


def quiet():
    """Whether progress lines are off: Q7_QUIET=1."""
    return os.environ.get("Q7_QUIET") == "1"


def progress_line(line):
    """Prints one progress line on stderr (unless Q7_QUIET=1)."""
    if not quiet():
        print(line, file=sys.stderr, flush=True)


def in_background():
    """Starts building the device SDK in a daemon thread when it is missing
    (the build runs in Rust, without the GIL); returns the thread, or None
    when there is nothing to build or no toolchain to build it with (a load
    then says why)."""
    if _BACKGROUND or getattr(sys, "orig_argv", [])[1:3] == ["-m", "q7.prepare"]:
        return None  # (`python -m q7.prepare` builds in the foreground)
    try:
        state = _q7.device_sdk()
    except Exception:
        return None
    if state is None or state[1]:
        return None

    def build():
        try:
            _q7.prepare(False, None, progress_line)
        except Exception:
            pass  # the load that needs the SDK builds it and says what failed

    thread = threading.Thread(target=build, name="q7-prepare", daemon=True)
    _BACKGROUND.append(thread)
    thread.start()
    return thread


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m q7.prepare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--native", action="store_true", help="also the host SDKs of `q7 run --native`")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    args = parser.parse_args(argv)
    say = (lambda line: None) if args.quiet else progress_line
    try:
        archive = _q7.prepare(args.native, None, say)
    except Exception as e:
        print(f"python -m q7.prepare: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        if archive is None:
            print("q7: the vendor's toolchain builds the ops; it brings its own SDK")
        else:
            print(f"q7: device SDK ready: {archive}")
    return 0
