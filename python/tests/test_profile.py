"""q7.profile(): the same report as `q7 profile`, for op calls made from PyTorch."""

import os
import subprocess

import numpy
import pytest
import torch

import q7

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_calls_inside_the_block_are_profiled(tcm_relu_builds):
    tcm_relu_builds("multicore")
    x = torch.randn(8 * 1000)
    torch.ops.my_tcm_ops.relu_forward(x)  # outside: not recorded
    with q7.profile() as p:
        y = torch.ops.my_tcm_ops.relu_forward(x)
        torch.ops.my_tcm_ops.relu_backward(y, x)
    torch.ops.my_tcm_ops.relu_forward(x)  # after: not recorded
    assert torch.equal(y, torch.relu(x)), "profiling does not change results"
    assert [c["op"] for c in p.calls] == ["my_tcm_ops::relu_forward", "my_tcm_ops::relu_backward"]
    report = p.calls[0]["profile"]
    assert report["model"]["name"].startswith("q7-memclass")
    assert len(report["cores"]) == 8
    assert report["predicted_seconds"] > 0 and report["cycles"] > 0
    functions = [f["function"] for f in report["functions"]]
    assert any(name.startswith("relu_forward") for name in functions), functions
    assert p.predicted_seconds() > p.predicted_seconds("my_tcm_ops::relu_forward") > 0
    text = p.summary()
    assert text.startswith("q7 profile: relu_forward on 8 cores\n"), text
    assert text.count("q7 profile: ") == 2 and "\n\nq7 profile: relu_backward on 8 cores\n" in text, text


def _q7_cli():
    """This checkout's q7 binary, which cargo brings up to date (a no-op
    after scripts/test.sh's build)."""
    subprocess.run(["cargo", "build", "--quiet", "-p", "q7"], cwd=REPO, check=True)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    return os.path.join(target, "debug", "q7")


def test_the_summary_is_the_text_q7_profile_prints(tcm_relu_builds, tmp_path):
    # One renderer: Python's summary of a call is byte for byte what the
    # command line prints for the same op and input, --top included.
    archive = tcm_relu_builds("multicore")
    x = torch.linspace(-3.0, 5.0, 8 * 500)
    with q7.profile() as p:
        torch.ops.my_tcm_ops.relu_forward(x)
    numpy.save(tmp_path / "x.npy", x.numpy())
    q7_bin = _q7_cli()
    for top in (None, 3, 0):
        argv = [q7_bin, "profile", archive, "--fn", "relu_forward", "--in", str(tmp_path / "x.npy")]
        argv += [] if top is None else ["--top", str(top)]
        cli = subprocess.run(argv, capture_output=True, text=True)
        assert cli.returncode == 0, cli.stderr
        assert cli.stdout.startswith("q7 profile: relu_forward on 8 cores\n"), cli.stdout
        assert p.summary(top) == cli.stdout
    assert p.summary(3) != p.summary(0), "--top cuts the tables"


def test_the_prediction_is_deterministic(test_ops):
    # The model counts simulated events, not host time: the same call twice
    # predicts the same device time.
    x = torch.randn(4096)
    with q7.profile() as p:
        torch.ops.q7_test_ops.copy_bytes(x)
        torch.ops.q7_test_ops.copy_bytes(x)
    first, second = (c["profile"]["predicted_seconds"] for c in p.calls)
    assert first == second > 0


def test_stats_take_the_op_object_as_documented(test_ops):
    op = torch.ops.q7_test_ops.copy_bytes
    before = q7.stats(op)["calls"]
    op(torch.ones(3))
    op.default(torch.ones(3))
    counted = q7.stats(op)
    assert counted["calls"] == before + 2 and counted["instructions"] > 0
    assert q7.stats(op.default) == counted == q7.stats("q7_test_ops::copy_bytes")
    with q7.profile() as p:
        op(torch.ones(3))
    assert p.predicted_seconds(op) == p.predicted_seconds("q7_test_ops::copy_bytes") > 0
    with pytest.raises(ValueError, match=r"^q7_test_ops::nothing is not an op q7 has bound"):
        q7.stats("q7_test_ops::nothing")
    with pytest.raises(TypeError, match=r"^42 is not an op"):
        q7.stats(42)
