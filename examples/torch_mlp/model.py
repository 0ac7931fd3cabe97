# A small MLP whose activation is pluggable: the custom op, or torch.relu.
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, activation, sizes=(32, 64, 16, 4)):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))
        self.activation = activation

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = self.activation(x)
        return torch.log_softmax(x, dim=1)


def train(activation, steps=5, seed=0, batch=16):
    """Trains on synthetic data; returns the loss after every step."""
    torch.manual_seed(seed)
    model = MLP(activation)
    inputs = torch.randn(steps, batch, 32)
    targets = torch.randint(0, 4, (steps, batch))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.nll_loss(model(inputs[step]), targets[step])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
