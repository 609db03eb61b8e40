# An input drawn from a distribution whose constructor checks its parameters' values.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, pred, target):
        return torch.mean((pred - target) ** 2)


batch: int = 64
features = 4096


def get_inputs():
    scale = torch.distributions.Pareto(0.5, 2.0).sample((batch, features))
    return [torch.rand(batch, features) * scale, torch.rand(batch, features)]


def get_init_inputs():
    return []
