"""A character-level GPT trained as nanoGPT's train.py trains one: the setup lines (TF32 switches, CUDA seeds,
autocast context, GradScaler), AdamW with weight-decay groups, a warmup + cosine learning rate, gradient
clipping, an estimate_loss() under no_grad, an optional torch.compile, and a checkpoint dict at the end.

Tiny on purpose. The batches come from numpy's generator and the initial weights from --init (written by the
first run, read by the next), so two runs of this file print the same losses whatever their torch's RNG.
"""
import argparse
import math
import os
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--init", required=True, help="initial weights: loaded if the file exists, else saved there")
parser.add_argument("--out-dir", default=".")
parser.add_argument("--iters", type=int, default=6)
parser.add_argument("--compile", action="store_true")
parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
args = parser.parse_args()

text = ("First Citizen: Before we proceed any further, hear me speak. All: Speak, speak. First Citizen: You are all "
        "resolved rather to die than to famish? All: Resolved. resolved.")
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
data = np.array([stoi[c] for c in text], dtype=np.int64)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]

block_size, batch_size, n_embd, n_head, n_layer = 8, 4, 16, 2, 2
learning_rate, min_lr, warmup_iters, lr_decay_iters, weight_decay, grad_clip = 1e-2, 1e-3, 2, 6, 0.1, 1.0

torch.manual_seed(1337)
torch.cuda.manual_seed_all(1337)
torch.backends.cuda.matmul.allow_tf32 = True  # allow tf32 on matmul
torch.backends.cudnn.allow_tf32 = True  # allow tf32 on cudnn
device = "cuda" if torch.cuda.is_available() else "cpu"
device_type = "cuda" if "cuda" in device else "cpu"
ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[args.dtype]
ctx = nullcontext() if device_type == "cpu" else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
rng = np.random.default_rng(0)


def get_batch(split):
    source = train_data if split == "train" else val_data
    ix = rng.integers(0, len(source) - block_size, size=batch_size)
    x = torch.from_numpy(np.stack([source[i:i + block_size] for i in ix]))
    y = torch.from_numpy(np.stack([source[i + 1:i + 1 + block_size] for i in ix]))
    if device_type == "cuda":
        x, y = x.pin_memory().to(device, non_blocking=True), y.pin_memory().to(device, non_blocking=True)
    else:
        x, y = x.to(device), y.to(device)
    return x, y


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd, bias=False)
        self.c_proj = nn.Linear(n_embd, n_embd, bias=False)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(n_embd), CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd),
                                              h=nn.ModuleList([Block() for _ in range(n_layer)]),
                                              ln_f=nn.LayerNorm(n_embd)))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [{"params": decay_params, "weight_decay": weight_decay},
                        {"params": nodecay_params, "weight_decay": 0.0}]
        print(f"num decayed parameter tensors: {len(decay_params)}, with {sum(p.numel() for p in decay_params):,} parameters")
        use_fused = device_type == "cuda"
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **(dict(fused=True) if use_fused else {}))


model = GPT(len(chars))
if os.path.exists(args.init):
    model.load_state_dict(torch.load(args.init, map_location=device))
else:
    torch.save(model.state_dict(), args.init)
model.to(device)
scaler = torch.cuda.amp.GradScaler(enabled=(args.dtype == "float16"))
optimizer = model.configure_optimizers(weight_decay, learning_rate, (0.9, 0.95), device_type)
raw_model = model
if args.compile:
    model = torch.compile(model)


@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(2)
        for k in range(2):
            X, Y = get_batch(split)
            with ctx:
                logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * min(decay_ratio, 1.0)))
    return min_lr + coeff * (learning_rate - min_lr)


X, Y = get_batch("train")
for iter_num in range(args.iters):
    lr = get_lr(iter_num)
    for param_group in optimizer.param_groups:
        param_group["lr"] = lr
    if iter_num % 3 == 0:
        losses = estimate_loss()
        print(f"step {iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    with ctx:
        logits, loss = model(X, Y)
    X, Y = get_batch("train")
    scaler.scale(loss).backward()
    if grad_clip != 0.0:
        scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item():.4f}, grad norm {norm:.4f}, lr {lr:.5f}")

checkpoint = {"model": raw_model.state_dict(), "optimizer": optimizer.state_dict(), "iter_num": args.iters,
              "config": {"n_layer": n_layer, "n_head": n_head, "n_embd": n_embd}}
torch.save(checkpoint, os.path.join(args.out_dir, "ckpt.pt"))
resumed = torch.load(os.path.join(args.out_dir, "ckpt.pt"), map_location=device)
print(f"saved and reloaded iter {resumed['iter_num']}, {len(resumed['model'])} tensors")
