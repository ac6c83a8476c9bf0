#!/usr/bin/env python3
"""The gradient noise scale of examples/pytorch-elastic/train_digits.py's model at a checkpoint,
computed offline from every sample's own gradient (no estimate from batches):
phi = tr(S) / |G|^2, G the mean gradient over the dataset, tr(S) the mean squared distance of a
sample's gradient from G. The elastic.goodput case compares it with what the helper reported.

usage: digits_noise_scale.py CHECKPOINT_DIR   (prints phi)
"""
import sys

import torch
import torch.nn as nn
from sklearn.datasets import load_digits


def main() -> None:
    state = torch.load(f"{sys.argv[1]}/gaptrain-state.pt", map_location="cpu")
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    model.load_state_dict(state["carried"]["model"] if "carried" in state else state["model"])
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    loss_fn = nn.CrossEntropyLoss()
    grads = []
    for i in range(len(y)):
        model.zero_grad()
        loss_fn(model(x[i:i + 1]), y[i:i + 1]).backward()
        grads.append(torch.cat([p.grad.reshape(-1) for p in model.parameters()]).double())
    g = torch.stack(grads)
    mean = g.mean(dim=0)
    trace = float((g - mean).pow(2).sum(dim=1).mean())
    print(f"{trace / float(mean.pow(2).sum()):.6g}")


if __name__ == "__main__":
    main()
