"""q7.profile(): the same report as `q7 profile`, for op calls made from PyTorch."""

import pytest
import torch

import q7


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
    assert "q7 profile: 2 op calls" in text and "my_tcm_ops::relu_forward: 1 calls" in text


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
