# log_of_squares_product — steptp workload catalog (level2, StepTP log of a positive product).
# Written for steptp: inlined, log((A*A+1)*(B*B+1)) splits into a sum of logs (expand_log),
# which logsimp joins again.
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
        v0 = A * A + 1
        v1 = B * B + 1
        v2 = v0 * v1
        v3 = torch.log(v2)
        return v3


def get_inputs():
    return [torch.randn((batch_size, m, k)), torch.randn((batch_size, m, k))]


def get_init_inputs():
    return []


SHAPE_RANGES = {"batch_size": [1, 1024], "m": [1, 4089], "k": [1, 4089]}
SMALL_SHAPES = {"batch_size": 2, "m": 8, "k": 8}
