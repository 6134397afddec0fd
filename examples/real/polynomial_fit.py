"""Fits a third-order polynomial to sin(x) with nn.Sequential and optim.SGD, in the way of
PyTorch's "Learning PyTorch with Examples" (written here; runs on PyTorch and on torchlet)."""
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.arange(-1000, 1000, dtype=torch.float32) * (math.pi / 1000)
y = torch.sin(x)
xx = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))

model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
loss_fn = nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6, momentum=0.9)
for t in range(1000):
    loss = loss_fn(model(xx), y)
    if t % 100 == 99:
        print(t, f"{loss.item():.6g}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

linear = model[0]
print(f"Result: y = {linear.bias.item():.5f} + {linear.weight[:, 0].item():.5f} x + "
      f"{linear.weight[:, 1].item():.5f} x^2 + {linear.weight[:, 2].item():.5f} x^3")
