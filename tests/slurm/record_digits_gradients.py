#!/usr/bin/env python3
"""Records what GradientNoise sees at every step of examples/pytorch-elastic/train_digits.py's
model trained to convergence, and the true noise scale every few steps, for the unit test
test_the_noise_scale_holds_near_convergence (python/tests/test_units.py).

W simulated workers each average the loss over b samples of the step's global batch (W b, drawn
without replacement from a per-epoch shuffle; the remainder of an epoch is dropped); the step's
gradient is the workers' mean, as after the all-reduce. Optimizer and schedule as the example's:
SGD with momentum 0.9, the learning rate times 0.99 after every epoch. Every step's row holds
what the all-reduce carries, mean_local_sqnorm (the mean over the workers of |g_i|^2) and
global_sqnorm (|mean g_i|^2); every --every steps (at the weights before that step) also the noise
scale computed offline from every sample's own gradient, as tests/slurm/digits_noise_scale.py
does: phi = tr(S) / |G|^2, G the mean gradient over the 1797 samples, tr(S) the mean squared
distance of a sample's gradient from G (offline_sqr, offline_trace, offline_phi; empty elsewhere).

The recording in the repository was made with (deterministic: seed, one thread, CPU):

    /usr/bin/python3 tests/slurm/record_digits_gradients.py --lr 0.002 --epochs 200 \
        --out python/tests/data/digits-gradients.csv.gz
"""
import argparse
import gzip
import io
import math

import torch
import torch.nn as nn
from sklearn.datasets import load_digits


def sample_sqnorms(model: nn.Sequential, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Every sample's squared gradient norm (of its own cross-entropy), in closed form for
    Linear-ReLU-Linear: a Linear layer's weight gradient is the outer product of the output's
    gradient and the input, whose squared norm is the product of theirs."""
    first, _, last = model
    with torch.no_grad():
        x = x.double()
        pre = x @ first.weight.double().T + first.bias.double()
        h = pre.clamp(min=0)
        out = h @ last.weight.double().T + last.bias.double()
        dout = out.softmax(dim=1)
        dout[torch.arange(len(y)), y] -= 1
        dpre = (dout @ last.weight.double()) * (pre > 0)
        dout2, dpre2 = dout.pow(2).sum(dim=1), dpre.pow(2).sum(dim=1)
        return dout2 * (h.pow(2).sum(dim=1) + 1) + dpre2 * (x.pow(2).sum(dim=1) + 1)


def flat_grad(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()]).double()


def offline(model: nn.Sequential, x: torch.Tensor, y: torch.Tensor, loss_fn: nn.Module) -> tuple[float, float]:
    """|G|^2 and tr(S) over the whole set."""
    model.zero_grad()
    loss_fn(model(x), y).backward()
    sqr = float(flat_grad(model).pow(2).sum())
    return sqr, float(sample_sqnorms(model, x, y).mean()) - sqr


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="the CSV (gzip-compressed if it ends in .gz)")
    p.add_argument("--lr", type=float, default=0.002)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--local-batch", type=int, default=16)
    p.add_argument("--every", type=int, default=100, help="steps between offline noise scales")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.99)
    loss_fn = nn.CrossEntropyLoss()
    order = torch.Generator().manual_seed(args.seed)
    workers, b = args.workers, args.local_batch
    steps_per_epoch = len(y) // (workers * b)

    # The first check that the closed form is every sample's gradient.
    for i in (0, 1, 2):
        model.zero_grad()
        loss_fn(model(x[i:i + 1]), y[i:i + 1]).backward()
        assert math.isclose(float(flat_grad(model).pow(2).sum()), float(sample_sqnorms(model, x[i:i + 1], y[i:i + 1])),
                            rel_tol=1e-5)

    out = open(args.out, "wb")
    # No name and mtime 0 in the gzip header: the same recording gives the same bytes.
    raw = gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) if args.out.endswith(".gz") else out
    with out, raw, io.TextIOWrapper(raw, encoding="ascii", newline="\n") as f:
        f.write("# train_digits.py's model (tests/slurm/record_digits_gradients.py): per step what the all-reduce\n"
                "# carries; every few steps the noise scale from every sample's gradient (offline_*)\n"
                f"# lr {args.lr} (x0.99 an epoch, momentum 0.9), {workers} workers x {b} samples, "
                f"seed {args.seed}\n")
        f.write("step,epoch,workers,local_batch,mean_local_sqnorm,global_sqnorm,"
                "offline_sqr,offline_trace,offline_phi\n")
        step = 0
        for epoch in range(args.epochs):
            perm = torch.randperm(len(y), generator=order)
            for s in range(steps_per_epoch):
                checkpoint = ""
                if step % args.every == 0:
                    sqr, tr = offline(model, x, y, loss_fn)
                    checkpoint = f"{sqr:.9g},{tr:.9g},{tr / sqr:.9g}"
                else:
                    checkpoint = ",,"
                batch = perm[s * workers * b:(s + 1) * workers * b]
                local = []
                for w in range(workers):
                    idx = batch[w * b:(w + 1) * b]
                    model.zero_grad()
                    loss_fn(model(x[idx]), y[idx]).backward()
                    local.append(flat_grad(model))
                g = torch.stack(local)
                mean = g.mean(dim=0)
                mean_local, global_sq = float(g.pow(2).sum(dim=1).mean()), float(mean.pow(2).sum())
                f.write(f"{step},{epoch},{workers},{b},{mean_local:.12g},{global_sq:.12g},{checkpoint}\n")
                # The step at the workers' mean gradient, as after the all-reduce.
                offset = 0
                for param in model.parameters():
                    n = param.numel()
                    param.grad = mean[offset:offset + n].reshape(param.shape).float()
                    offset += n
                optimizer.step()
                step += 1
            scheduler.step()


if __name__ == "__main__":
    main()
