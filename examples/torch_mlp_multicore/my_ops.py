# The 8-core op as a PyTorch autograd Function: forward and backward are the two
# custom ops of librelu.so.
import os

import torch
from torch_neuronx.xla_impl import custom_op

custom_op.load_library(os.path.join(os.path.dirname(os.path.abspath(__file__)), "librelu.so"))


class Relu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return torch.ops.my_tcm_ops.relu_forward(input)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return torch.ops.my_tcm_ops.relu_backward(grad, input)
