"""A sine-wave LSTM fitted with LBFGS, as PyTorch's examples/time_sequence_prediction does: two LSTMCells in
float64, ``optim.LBFGS(seq.parameters(), lr=0.8)`` with a closure that prints each loss, then a prediction of
the future under ``torch.no_grad()``.

Smaller and shorter than the example. The waves come from numpy's generator and the initial weights from
--init (written by the first run, read by the next), so two runs print the same numbers whatever their RNG.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self, hidden=12):
        super().__init__()
        self.hidden = hidden
        self.lstm1 = nn.LSTMCell(1, hidden)
        self.lstm2 = nn.LSTMCell(hidden, hidden)
        self.linear = nn.Linear(hidden, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), self.hidden, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        return torch.cat(outputs, dim=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--init", required=True, help="initial weights: loaded if the file exists, else saved there")
    parser.add_argument("--steps", type=int, default=2, help="steps to run")
    opt = parser.parse_args()
    # the example's generate_sine_wave.py, smaller
    T, L, N = 20, 40, 6
    x = np.empty((N, L), np.int64)
    x[:] = np.array(range(L)) + np.random.default_rng(2).integers(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype("float64")

    np.random.seed(0)
    torch.manual_seed(0)
    input = torch.from_numpy(data[2:, :-1])
    target = torch.from_numpy(data[2:, 1:])
    test_input = torch.from_numpy(data[:2, :-1])
    test_target = torch.from_numpy(data[:2, 1:])
    seq = Sequence()
    seq.double()
    if os.path.exists(opt.init):
        seq.load_state_dict(torch.load(opt.init))
    else:
        torch.save(seq.state_dict(), opt.init)
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=5)
    for i in range(opt.steps):
        print("STEP: ", i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print("loss:", f"{loss.item():.8f}")
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 5
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print("test loss:", f"{loss.item():.8f}")
            y = pred.detach().numpy()
        print("prediction tail:", " ".join(f"{v:.6f}" for v in y[0, -3:]))
