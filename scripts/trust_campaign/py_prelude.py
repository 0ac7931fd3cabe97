# Prepended to every Python scenario (run by the q7 venv's python): the
# archives, the helpers a scenario asserts with, and its verdict line.
import json
import os
import signal  # noqa: F401  (for the scenarios)
import sys
import threading  # noqa: F401  (for the scenarios)
import time
import warnings  # noqa: F401  (for the scenarios)

import torch

import q7  # noqa: F401  (for the scenarios)
from q7 import custom_op

ARCH = json.loads(os.environ["CAMPAIGN_ARCHIVES"])
OPS_DIR = os.environ["CAMPAIGN_OPS_DIR"]
S = os.environ["CAMPAIGN_SCRATCH"]
SENTINEL = os.environ["CAMPAIGN_SENTINEL"]
_failures = []


def fail(why):
    _failures.append(str(why))


def check(cond, why):
    if not cond:
        fail(why)


def raises(kinds, fn, match=None, name="call"):
    """The call raises one of `kinds` (whose message contains `match`); returns the message."""
    try:
        fn()
    except kinds as e:
        if match and match not in str(e):
            fail(f"{name}: {type(e).__name__} without {match!r}: {str(e)[:300]}")
        return str(e)
    except BaseException as e:
        fail(f"{name}: raised {type(e).__name__} (wanted {kinds}): {str(e)[:300]}")
        return None
    fail(f"{name}: returned without raising {kinds}")
    return None


def ops():
    return torch.ops.q7_test_ops


def bind(kind="single"):
    custom_op.load_library(ARCH[kind])


def mark(name):
    with open(os.path.join(S, name), "w") as f:
        f.write(repr(time.time()))


def done():
    if _failures:
        for f in _failures:
            print("SCENARIO-FAIL:", f, flush=True)
        sys.exit(3)
    print("SCENARIO-OK", flush=True)
