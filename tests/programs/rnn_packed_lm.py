"""A word-level LSTM language model over sentences of different lengths, as the RNN tutorials batch them:
``pad_sequence``, ``pack_padded_sequence(enforce_sorted=False)`` into a batch-first 2-layer LSTM,
``pad_packed_sequence`` back, ``model.rnn.flatten_parameters()`` before each forward as multi-GPU scripts call it,
an Embedding with ``padding_idx``, CrossEntropyLoss with ``ignore_index``, ``clip_grad_norm_``, Adam with
ReduceLROnPlateau on the validation loss, and a greedy generation under ``torch.no_grad()``.

The corpus is in this file; the initial weights come from --init (written by the first run, read by the next),
so two runs print the same numbers whatever their torch's RNG.
"""
import argparse
import math
import os

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

parser = argparse.ArgumentParser(description="LSTM language model over packed sequences")
parser.add_argument("--init", required=True, help="initial weights: loaded if the file exists, else saved there")
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--clip", type=float, default=0.25, help="gradient clipping")
args = parser.parse_args()

corpus = ["the cat sat on the mat", "the dog sat on the log", "a cat saw a dog", "the dog saw the cat on a mat",
          "a log sat", "the mat saw a log on the dog"]
words = ["<pad>", "<eos>"] + sorted({w for line in corpus for w in line.split()})
index = {w: i for i, w in enumerate(words)}
sentences = [torch.tensor([index[w] for w in line.split()] + [index["<eos>"]]) for line in corpus]
train, valid = sentences[:4], sentences[4:]


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp, padding_idx=0)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens, lengths, hidden=None):
        self.rnn.flatten_parameters()
        packed = pack_padded_sequence(self.encoder(tokens), lengths, batch_first=True, enforce_sorted=False)
        output, hidden = self.rnn(packed, hidden)
        output, _ = pad_packed_sequence(output, batch_first=True, total_length=tokens.size(1))
        return self.decoder(output), hidden


def batch(seqs):
    inputs = pad_sequence([s[:-1] for s in seqs], batch_first=True, padding_value=0)
    targets = pad_sequence([s[1:] for s in seqs], batch_first=True, padding_value=0)
    return inputs, targets, torch.tensor([len(s) - 1 for s in seqs])


torch.manual_seed(1111)
model = RNNModel(len(words), 8, 12, 2)
if os.path.exists(args.init):
    model.load_state_dict(torch.load(args.init))
else:
    torch.save(model.state_dict(), args.init)
criterion = nn.CrossEntropyLoss(ignore_index=0)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)


def evaluate(seqs):
    model.eval()
    with torch.no_grad():
        inputs, targets, lengths = batch(seqs)
        output, _ = model(inputs, lengths)
        return criterion(output.view(-1, len(words)), targets.view(-1)).item()


for epoch in range(1, args.epochs + 1):
    model.train()
    for i in range(0, len(train), 2):
        inputs, targets, lengths = batch(train[i:i + 2])
        model.zero_grad()
        output, hidden = model(inputs, lengths)
        loss = criterion(output.view(-1, len(words)), targets.view(-1))
        loss.backward()
        total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        print(f"| epoch {epoch:3d} | batch {i // 2} | loss {loss.item():5.4f} | ppl {math.exp(loss.item()):8.4f} "
              f"| norm {total_norm.item():.4f}")
    val_loss = evaluate(valid)
    scheduler.step(val_loss)
    print(f"| end of epoch {epoch:3d} | valid loss {val_loss:5.4f} | lr {optimizer.param_groups[0]['lr']:.4f}")

model.eval()
token, hidden, generated = torch.tensor([[index["the"]]]), None, ["the"]
with torch.no_grad():
    for _ in range(5):
        output, hidden = model(token, torch.tensor([1]), hidden)
        token = output[:, -1].argmax(dim=-1, keepdim=True)
        generated.append(words[token.item()])
print("generated:", " ".join(generated))
