#!/usr/bin/env python3
"""Elastic data-parallel training of a small MLP on scikit-learn's digits (1797 8x8 images).

    gaptrain submit -N 1-4 -- python3 train_digits.py --checkpoint DIR --epochs N

runs it on every node the job holds. gaptrain's helper (the `gaptrain` Python package) deals
each global batch out to the workers there are, averages the gradients, and when the job grows
or shrinks regroups the workers in-process: the ones that stay keep model and optimizer, a
newcomer gets them from rank 0, and the data position carries on exactly (no sample skipped or
repeated). It saves DIR/gaptrain-state.pt on every notice that a node will go, every
--checkpoint-every-s seconds and at the end; a job started again resumes from it.
"""
import argparse
import time

import torch
import torch.nn as nn
from sklearn.datasets import load_digits

from gaptrain import ElasticLoop
from gaptrain.say import say


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", required=True, help="directory all nodes share")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32, help="per worker and step")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--checkpoint-every-s", type=float, default=60.0)
    p.add_argument("--checkpoint-every-steps", type=int, help="also every N steps (under torchrun)")
    p.add_argument("--step-sleep", type=float, default=0.0,
                   help="seconds per step standing in for a model worth distributing")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lr-rule", default="adascale", choices=["adascale", "linear", "sqrt", "none"],
                   help="how the learning rate follows the global batch (with gaptrain submit --batch)")
    args = p.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)  # rank 0's weights are sent to everyone anyway
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    loop = ElasticLoop(model, optimizer, dataset_size=len(y), batch_size=args.batch_size,
                       epochs=args.epochs, checkpoint_dir=args.checkpoint, seed=args.seed,
                       checkpoint_every_s=args.checkpoint_every_s,
                       checkpoint_every_steps=args.checkpoint_every_steps, lr_rule=args.lr_rule)
    epoch, losses = None, []
    for indices in loop:
        epoch = loop.position.epoch if epoch is None else epoch
        loss = loss_fn(model(x[indices]), y[indices])
        if loop.step(loss):
            losses.append(loss.item())
        time.sleep(args.step_sleep)
        if loop.position.epoch != epoch:  # rank 0's share of the epoch: a fair estimate
            say(f"epoch {epoch}: mean loss {sum(losses) / max(1, len(losses)):.4f}", loop.rank)
            epoch, losses = loop.position.epoch, []


if __name__ == "__main__":
    main()
