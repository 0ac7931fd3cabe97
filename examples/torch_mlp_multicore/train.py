# Trains ../torch_mlp's MLP for a few steps with the 8-core TCM relu (forward
# and backward in q7's simulator) and checks the losses equal torch.relu's
# bit for bit. Run after build.py: `python -m q7.neuronx train.py [STEPS]`.
import os
import sys

import torch

import q7

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch_mlp"))
import my_ops  # noqa: E402  (this directory's: the script directory comes first)
from model import train  # noqa: E402

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
custom = train(my_ops.Relu.apply, steps)
reference = train(torch.relu, steps)
for step, (a, b) in enumerate(zip(custom, reference)):
    print(f"step {step}: loss {a:.6f} (torch.relu: {b:.6f})")
if custom != reference:
    sys.exit("train.py: the losses differ from torch.relu's")
calls = q7.stats("my_tcm_ops::relu_forward")["calls"], q7.stats("my_tcm_ops::relu_backward")["calls"]
print(f"train.py: {steps} step(s), losses equal torch.relu's bit for bit; on 8 simulated cores:"
      f" relu_forward {calls[0]} calls, relu_backward {calls[1]} calls")
