"""The extension's entry points, called directly (bridge_exercise.py; the
suite also runs it under valgrind's memcheck, scripts/bridge-memcheck.sh)."""

import bridge_exercise


def test_every_bridge_entry_point(tmp_path):
    bridge_exercise.exercise(str(tmp_path / "build"))
