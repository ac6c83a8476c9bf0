#!/usr/bin/env python3
"""Elastic data-parallel training of a small MLP on scikit-learn's digits (1797 8x8 images).

    gaptrain submit -N 1-4 -- python3 train_digits.py --checkpoint DIR --epochs N

runs it on every node the job holds. The loop is an ordinary PyTorch loop; gaptrain's helper
(the `gaptrain` Python package) deals each global batch of --batch-size samples out to the
workers there are, averages the gradients at the end of each backward pass, and when the job
grows or shrinks regroups the workers in-process between two steps: the ones that stay keep
their state, a newcomer gets the carried state (model, optimizer, scheduler) from rank 0, and
the data position carries on exactly (no sample skipped or repeated). It saves
DIR/gaptrain-state.pt on every notice that a node will go, every --checkpoint-every-s seconds
and at the end; a job started again resumes from it.
"""
import argparse
import time

import torch
import torch.nn as nn
from sklearn.datasets import load_digits

import gaptrain
from gaptrain.say import say


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", required=True, help="directory all nodes share")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64, help="the global batch, whatever the node count")
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
    train = torch.utils.data.TensorDataset(x, y)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.99)
    loss_fn = nn.CrossEntropyLoss()

    job = gaptrain.ElasticJob(args.checkpoint, seed=args.seed, lr_rule=args.lr_rule,
                              checkpoint_every_s=args.checkpoint_every_s,
                              checkpoint_every_steps=args.checkpoint_every_steps)
    job.carry(model=model, optimizer=optimizer, scheduler=scheduler)
    loader = job.loader(train, batch_size=args.batch_size)
    for epoch in job.epochs(args.epochs):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            loss.backward()
            if job.accumulating:  # only with gaptrain submit --batch: a micro-batch of the step
                continue
            optimizer.step()
            optimizer.zero_grad()
            time.sleep(args.step_sleep)
        scheduler.step()
        # Evaluation on the whole set, sharded over the workers: every sample once.
        with torch.no_grad():
            sums = [0.0, 0.0, 0]
            for xb, yb in job.shard(train, 256):
                out = model(xb)
                sums = [sums[0] + float(loss_fn(out, yb)) * len(yb), sums[1] + float((out.argmax(1) == yb).sum()),
                        sums[2] + len(yb)]
            loss_sum, correct, count = job.all_reduce(sums)
        say(f"epoch {epoch}: mean loss {loss_sum / count:.4f}, accuracy {correct / count:.3f} "
            f"over {count:.0f} samples, learning rate {scheduler.get_last_lr()[0]:.4f}", job.rank)


if __name__ == "__main__":
    main()
