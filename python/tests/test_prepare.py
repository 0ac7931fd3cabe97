"""The device SDK built ahead of the first custom_op.load (issue 31): by
`python -m q7.prepare`, or in the background when importing q7 finds it
missing, once, shared with whatever build waits for it."""

import json
import os
import subprocess
import sys

from q7 import _q7

BUILDING = "q7: building q7's device SDK (once per q7 version and compiler)"

# Imports q7 (which starts the background build), then asks for the SDK in
# the foreground at once, as a first custom_op.load would.
FIRST_USE = """
import json
from q7 import _prepare, _q7
started = len(_prepare._BACKGROUND)
lines = []
archive = _q7.prepare(False, None, lines.append)
_prepare._BACKGROUND[0].join()
path, built = _q7.device_sdk()
print(json.dumps({"started": started, "archive": str(archive), "lines": lines, "state": [str(path), built]}))
"""


def test_a_missing_device_sdk_is_built_once_in_the_background_and_shared(tmp_path):
    if _q7.device_sdk() is None:
        return  # the vendor's toolchain: no SDK of q7's to build
    env = dict(os.environ, Q7_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("Q7_QUIET", None)
    done = subprocess.run([sys.executable, "-c", FIRST_USE], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["started"] == 1
    assert out["state"] == [out["archive"], True] and os.path.isfile(out["archive"])
    assert out["archive"].startswith(str(tmp_path / "cache"))
    # Built once: by the background thread (said on stderr) or, when the
    # foreground took the lock first, by it; the other waited.
    said = done.stderr.splitlines() + out["lines"]
    assert said.count(BUILDING) == 1, said
    assert set(said) <= {BUILDING, "q7: waiting for q7's device SDK, which another q7 is building"}, said

    # Later: `python -m q7.prepare` finds it built, and names it; -q says nothing.
    again = subprocess.run([sys.executable, "-m", "q7.prepare"], env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stdout == f"q7: device SDK ready: {out['archive']}\n", again.stderr
    assert again.stderr == ""
    quiet = subprocess.run([sys.executable, "-m", "q7.prepare", "-q"], env=env, capture_output=True, text=True)
    assert quiet.returncode == 0 and quiet.stdout == quiet.stderr == ""
    # Importing q7 with the SDK built starts nothing.
    check = "from q7 import _prepare; print(len(_prepare._BACKGROUND))"
    checked = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True)
    assert checked.stdout == "0\n", checked.stderr
