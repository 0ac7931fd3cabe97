"""An 8-core build gives the same tensors as its single-core build."""

import pytest
import torch

import q7


@pytest.mark.parametrize("shape", [(8 * 300,), (8 * 300 + 5,), (3,), (37, 11), (16, 64)], ids=str)
def test_multicore_equals_single_core(tcm_relu_builds, shape):
    torch.manual_seed(sum(shape))
    x = torch.randn(shape)
    grad = torch.randn(shape)
    outputs = {}
    for kind in ("single", "multicore"):
        tcm_relu_builds(kind)
        outputs[kind] = (torch.ops.my_tcm_ops.relu_forward(x), torch.ops.my_tcm_ops.relu_backward(grad, x))
    assert torch.equal(outputs["single"][0], outputs["multicore"][0])
    assert torch.equal(outputs["single"][1], outputs["multicore"][1])
    assert torch.equal(outputs["multicore"][0], torch.relu(x))
    assert torch.equal(outputs["multicore"][1], torch.where(x > 0, grad, torch.zeros_like(grad)))


def test_multicore_build_runs_eight_cores(tcm_relu_builds):
    tcm_relu_builds("multicore")
    assert q7._runtime._BOUND["my_tcm_ops::relu_forward"].compute.cores == 8
