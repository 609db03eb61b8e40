# torch 2's scaled_dot_product_attention, causal and with an explicit scale, in half precision.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.25)


b, h, n, d = 4, 8, 256, 64


def get_inputs():
    return [torch.rand(b, h, n, d, dtype=torch.float16, device="cuda") for _ in range(3)]


def get_init_inputs():
    return []
