"""Per-call cost of torch.ops through q7, beside peers measured in the same run.

    .venv/bin/python python/bench/call_overhead.py [CALLS]

For a trivial op (copy_bytes of python/tests/ops: one memcpy on the device)
on 1 and 1,048,576 float32 elements it prints, per call: the whole call, the
time inside the simulator's run loop, and the rest ("non-simulation": shape
function, argument checks, machine set-up, the copies in and out). The
peers: torch.relu on the same tensor (a native CPU op) and x.clone() (one
copy of the tensor, what one crossing costs at least).

Then the shape step alone (the shape function through the host shape
library's C ABI, as each call runs it), per call for one and for four
arguments, beside its goal of 20 us (issue 31).
"""

import os
import sys
import tempfile
import time

import torch

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
os.environ.setdefault("Q7_CACHE_DIR", os.path.join(REPO, "target", "q7-py-cache"))

import q7  # noqa: E402
from q7 import custom_op  # noqa: E402


def per_call(fn, calls):
    fn()  # warm
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - started) / calls


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    ops = os.path.join(REPO, "python", "tests", "ops")
    with tempfile.TemporaryDirectory() as build:
        custom_op.load(
            name="q7_test_ops",
            compute_srcs=[os.path.join(ops, "ops.cpp")],
            shape_srcs=[os.path.join(ops, "shape.cpp")],
            build_directory=build,
        )
    op = torch.ops.q7_test_ops.copy_bytes
    print(f"{'elements':>10} {'calls':>6} {'per call':>10} {'simulated':>10} {'non-sim':>10} {'torch.relu':>11} {'clone':>9}  non-sim/relu  non-sim/clone")
    for numel in (1, 1 << 20):
        x = torch.randn(numel)
        n = calls if numel == 1 else max(3, calls // 20)
        assert torch.equal(op(x), x)
        before = q7.stats("q7_test_ops::copy_bytes")
        total = per_call(lambda: op(x), n)
        after = q7.stats("q7_test_ops::copy_bytes")
        simulated = (after["simulated_seconds"] - before["simulated_seconds"]) / (after["calls"] - before["calls"])
        non_sim = total - simulated
        relu = per_call(lambda: torch.relu(x), n)
        clone = per_call(lambda: x.clone(), n)
        print(
            f"{numel:>10} {n:>6} {total * 1e3:>8.3f}ms {simulated * 1e3:>8.3f}ms {non_sim * 1e3:>8.3f}ms "
            f"{relu * 1e3:>9.4f}ms {clone * 1e3:>7.4f}ms  {non_sim / relu:>11.1f}x  {non_sim / clone:>12.1f}x"
        )
    from q7 import _runtime

    x = torch.randn(64, 32)
    for qualified, args in (("q7_test_ops::copy_bytes", (x,)), ("q7_test_ops::affine", (x[0], 2.0, 1, 0.5))):
        shape = _runtime._BOUND[qualified].shape
        seconds = per_call(lambda: shape(args), calls * 50)
        print(f"shape step of {qualified}, {len(args)} argument(s): {seconds * 1e6:.1f} us per call (goal <= 20 us)")


if __name__ == "__main__":
    main()
