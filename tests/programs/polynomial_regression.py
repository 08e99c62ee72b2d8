"""Polynomial regression as PyTorch's examples/regression/main.py: features x, x^2, x^3, x^4, a Linear layer,
smooth L1 loss, and the manual update ``param.data.add_(-0.1 * param.grad)`` until the loss is small; the
report prints 0-d tensors through f-strings, as the example's ``poly_desc`` does with ``.item()`` and scripts do
without it.

The target polynomial and the batches come from numpy's generator and the initial weights from --init
(written by the first run, read by the next), so two runs print the same numbers whatever their torch's RNG.
"""
import argparse
import os
from itertools import count

import numpy as np
import torch
import torch.nn.functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--init", required=True, help="initial weights: loaded if the file exists, else saved there")
args = parser.parse_args()

POLY_DEGREE = 4
rng = np.random.default_rng(4)
W_target = torch.from_numpy(rng.standard_normal((POLY_DEGREE, 1)).astype(np.float32)) * 5
b_target = torch.from_numpy(rng.standard_normal(1).astype(np.float32)) * 5


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = "y = "
    for i, w in enumerate(W):
        result += "{:+.2f} x^{} ".format(w, i + 1)
    result += "{:+.2f}".format(b[0])
    return result


def get_batch(batch_size=32):
    """Builds a batch i.e. (x, f(x)) pair."""
    random = torch.from_numpy(rng.standard_normal(batch_size).astype(np.float32))
    x = make_features(random)
    y = f(x)
    return x, y


fc = torch.nn.Linear(W_target.size(0), 1)
if os.path.exists(args.init):
    fc.load_state_dict(torch.load(args.init))
else:
    torch.save(fc.state_dict(), args.init)

for batch_idx in count(1):
    batch_x, batch_y = get_batch()
    fc.zero_grad()
    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    output.backward()
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)
    if batch_idx % 10 == 0:
        print(f"batch {batch_idx}: loss {output:.6f}")
    if loss < 1e-1 or batch_idx == 60:
        break

print("Loss: {:.6f} after {} batches".format(loss, batch_idx))
print("==> Learned function:\t" + poly_desc(fc.weight.view(-1), fc.bias))
print("==> Actual function:\t" + poly_desc(W_target.view(-1), b_target))
print(f"bias error {abs(fc.bias - b_target).sum():.4f}, weight norm {fc.weight.norm()}")
