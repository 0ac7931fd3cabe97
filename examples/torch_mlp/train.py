# Trains the MLP for a few steps with the custom relu (forward and backward
# in q7's simulator) and with torch.relu, and checks the losses agree bit
# for bit. Run after build.py: `python -m q7.neuronx train.py [STEPS]`.
import sys

import torch

import my_ops
from model import train

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
custom = train(my_ops.Relu.apply, steps)
reference = train(torch.relu, steps)
for step, (a, b) in enumerate(zip(custom, reference)):
    print(f"step {step}: loss {a:.6f} (torch.relu: {b:.6f})")
if custom != reference:
    sys.exit("train.py: the losses differ from torch.relu's")
print(f"train.py: {steps} steps through q7, losses equal torch.relu's bit for bit")
