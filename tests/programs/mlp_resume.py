"""An MLP classifier trained, checkpointed and resumed as tutorial scripts do: the device line, cudnn.benchmark,
a Dataset/DataLoader with workers and pinned memory, SGD with Nesterov momentum, a OneCycleLR schedule stepped
per batch, gradient clipping by value, a whole-model ``torch.save(model)`` then ``torch.load(weights_only=False)``
to resume with the optimizer's and scheduler's state dicts, and an evaluation under ``torch.inference_mode()``.

The data and the shuffling come from numpy's generator and the initial weights from --init (written by the first
run, read by the next), so two runs print the same numbers whatever their torch's RNG.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser(description="MLP with checkpoint and resume")
parser.add_argument("--init", required=True, help="initial weights: loaded if the file exists, else saved there")
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--lr", type=float, default=0.05)
args = parser.parse_args()

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
torch.backends.cudnn.benchmark = True
torch.manual_seed(1)
rng = np.random.default_rng(1)


class Blobs(Dataset):
    """Three Gaussian blobs in 4 dimensions."""

    def __init__(self, n, rng):
        centers = np.array([[2, 0, 0, 1], [-2, 1, 0, 0], [0, -2, 1, -1]], dtype=np.float32)
        self.labels = rng.integers(0, 3, size=n)
        self.points = (centers[self.labels] + rng.standard_normal((n, 4))).astype(np.float32)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.points[i]), int(self.labels[i])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 32)
        self.bn = nn.BatchNorm1d(32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.bn(self.fc1(x)))), dim=1)


train_set, test_set = Blobs(64, rng), Blobs(32, rng)
kwargs = {"num_workers": 2, "pin_memory": True} if use_cuda else {"num_workers": 2}
test_loader = DataLoader(test_set, batch_size=32, shuffle=False, **kwargs)

model = Net().to(device)
if os.path.exists(args.init):
    model.load_state_dict(torch.load(args.init))
else:
    torch.save(model.state_dict(), args.init)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
steps_per_epoch = len(train_set) // args.batch_size
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, epochs=args.epochs + 1,
                                                steps_per_epoch=steps_per_epoch)


def train(epoch):
    model.train()
    order = rng.permutation(len(train_set)).tolist()
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=order, drop_last=True, **kwargs)
    for batch_idx, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
        optimizer.step()
        scheduler.step()
        print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(loader.dataset)}]\tLoss: {loss.item():.6f}"
              f"\tlr {scheduler.get_last_lr()[0]:.6f}")


def test():
    model.eval()
    test_loss, correct = 0, 0
    with torch.inference_mode():
        for data, target in test_loader:
            output = model(data.to(device))
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            correct += output.argmax(dim=1, keepdim=True).eq(target.view_as(output.argmax(dim=1, keepdim=True))).sum().item()
    print(f"Test set: Average loss: {test_loss / len(test_loader.dataset):.4f}, Accuracy: {correct}/{len(test_loader.dataset)}")


for epoch in range(1, args.epochs + 1):
    train(epoch)
    test()

torch.save(model, "model.pt")
torch.save({"epoch": args.epochs, "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, "state.pt")
del model, optimizer, scheduler

model = torch.load("model.pt", weights_only=False)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, epochs=args.epochs + 1,
                                                steps_per_epoch=steps_per_epoch)
state = torch.load("state.pt")
optimizer.load_state_dict(state["optimizer"])
scheduler.load_state_dict(state["scheduler"])
print(f"resumed after epoch {state['epoch']}")
train(state["epoch"] + 1)
test()
