# Trains the MLP for a few steps with the custom relu (forward and backward
# in q7's simulator) and with torch.relu, and checks the losses agree bit
# for bit. Run after build.py: `python -m q7.neuronx train.py [STEPS]`.
import sys

import torch

import my_ops
import q7
from model import train

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
custom = train(my_ops.Relu.apply, steps)
reference = train(torch.relu, steps)
for step, (a, b) in enumerate(zip(custom, reference)):
    print(f"step {step}: loss {a:.6f} (torch.relu: {b:.6f})")
if custom != reference:
    sys.exit("train.py: the losses differ from torch.relu's")
calls = q7.stats("my_ops::relu_forward")["calls"], q7.stats("my_ops::relu_backward")["calls"]
print(f"train.py: {steps} step(s), losses equal torch.relu's bit for bit; in q7's simulator:"
      f" relu_forward {calls[0]} calls, relu_backward {calls[1]} calls")
