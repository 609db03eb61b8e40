# Sizes bound by chained and tuple assignments, inputs asked for on 'cuda'.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k)

    def forward(self, x):
        return torch.relu(self.conv(x))


batch = 16
rows = cols = 64
cin, cout = 3, 8
k = 3


def get_inputs():
    return [torch.rand(batch, cin, rows, cols, device="cuda")]


def get_init_inputs():
    return [cin, cout, k]
