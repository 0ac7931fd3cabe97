"""Ops called from several Python threads at once: the simulation releases
the GIL, so calls overlap, and q7's module tables must stay exact."""

import subprocess
import sys
import threading

import torch

import q7

THREADS = 6
CALLS = 40


def _hammer(fn):
    """Runs fn() CALLS times in each of THREADS threads, all started together,
    with the interpreter switching threads as often as it can."""
    start = threading.Barrier(THREADS)
    errors = []

    def worker():
        start.wait()
        try:
            for _ in range(CALLS):
                fn()
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker) for _ in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors


def test_concurrent_calls_are_counted_and_profiled_exactly(test_ops):
    x = torch.arange(64, dtype=torch.int32)
    before = q7.stats("q7_test_ops::copy_bytes")

    def call():
        assert torch.equal(torch.ops.q7_test_ops.copy_bytes(x), x)

    with q7.profile() as p:
        _hammer(call)
    after = q7.stats("q7_test_ops::copy_bytes")
    assert after["calls"] - before["calls"] == THREADS * CALLS
    assert len(p.calls) == THREADS * CALLS
    # Every call runs the same instructions: the sum is exact too.
    one_call = q7.stats("q7_test_ops::copy_bytes")["instructions"]
    torch.ops.q7_test_ops.copy_bytes(x)
    one_call = q7.stats("q7_test_ops::copy_bytes")["instructions"] - one_call
    assert after["instructions"] - before["instructions"] == THREADS * CALLS * one_call


RACE = """
import sys, threading, torch
from q7 import custom_op
start = threading.Barrier(6)
errors = []
def worker():
    start.wait()
    try:
        custom_op.load_library(sys.argv[1])
        x = torch.arange(8, dtype=torch.float32)
        assert torch.equal(torch.ops.q7_test_ops.copy_bytes(x), x)
    except BaseException as e:
        errors.append(repr(e))
threads = [threading.Thread(target=worker) for _ in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
sys.exit("\\n".join(errors) or None)
"""


def test_threads_loading_one_archive_first_all_find_its_ops_bound(test_ops_archives):
    # In a fresh process, six threads load the same archive at once: each
    # load_library must return with the ops registered (unguarded, one
    # thread found the library loaded by another and called the op before
    # that thread had bound it: "Could not run ... CPU backend", 1 run in 3).
    for _ in range(3):
        run = subprocess.run(
            [sys.executable, "-c", RACE, test_ops_archives["single"]], capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, run.stderr[-2000:]
