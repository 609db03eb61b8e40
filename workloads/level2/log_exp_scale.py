# log_exp_scale — steptp workload catalog (level2, StepTP log of a positive product).
# Written for steptp: once inlined, log(exp(A)*(B*B+1)) is where expand_log applies.
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 128
m = 128
k = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        v0 = torch.exp(A)
        v1 = B * B
        v2 = v1 + 1
        v3 = v0 * v2
        v4 = torch.log(v3)
        return v4


def get_inputs():
    return [torch.randn((batch_size, m, k)), torch.randn((batch_size, m, k))]


def get_init_inputs():
    return []


SHAPE_RANGES = {"batch_size": [1, 1024], "m": [1, 4089], "k": [1, 4089]}
SMALL_SHAPES = {"batch_size": 2, "m": 8, "k": 8}
