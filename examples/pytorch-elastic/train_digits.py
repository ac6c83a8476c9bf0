#!/usr/bin/env python3
"""Elastic data-parallel training of a small MLP on scikit-learn's digits dataset.

Meant to be started by torchrun (python3 -m torch.distributed.run) with an elastic node
range, e.g. --nnodes=1:4. Whenever a node joins or leaves, torchrun stops every worker and
starts them again with the new world size; this script then resumes from its checkpoint.

Resume semantics (exact, mid-epoch):
  * Every epoch visits the dataset in one fixed order, a permutation seeded by seed + epoch,
    whatever the world size. The checkpoint records the epoch and `epoch_pos`, how many
    samples of that permutation are done.
  * A resumed run skips the first `epoch_pos` samples of the permutation and shards the
    rest over the (new) workers; so no sample of an epoch is trained twice or skipped,
    and no epoch is repeated or lost. Steps done after the last checkpoint are redone.
  * The progress log holds only checkpointed work: rank 0 keeps the lines of its steps in
    memory and appends them right after the checkpoint that covers them is in place (the
    checkpoint carries them too, so a run killed in between appends them when it resumes).
    A restarted run therefore never logs a step twice nor loses one: `step` strictly
    increases across restarts, and the line whose epoch_pos equals the dataset size marks
    the end of that epoch, exactly once per epoch.

Progress log: one JSON object per line and step, e.g.
  {"step": 57, "epoch": 1, "epoch_pos": 1024, "loss": 0.41, "world_size": 2,
   "samples_done": 2821, "time": 1714000000.1, "attempt": 2}
samples_done is cumulative over the whole run (gaptrain learns scaling curves from it);
attempt counts the starts of the worker group (1 = first start).
"""
import argparse
import json
import os
import socket
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import torch_compat  # beside this script: what differs between torch releases


class ResumableDistributedSampler(DistributedSampler):
    """DistributedSampler that can skip the first `start` samples of the epoch's order.

    DistributedSampler hands rank r the indices perm[r], perm[r + W], ...; batch k of every
    rank together therefore covers exactly positions [k*B*W, (k+1)*B*W) of the permutation,
    so the work done is always a prefix of it, which is what the checkpoint records.
    """

    def set_epoch(self, epoch, start=0):
        super().set_epoch(epoch)
        self.start = start

    def _remaining(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)  # independent of the world size
        perm = torch.randperm(len(self.dataset), generator=g).tolist()
        return perm[getattr(self, "start", 0):]

    def __iter__(self):
        rest = self._remaining()
        # Pad like DistributedSampler so every rank runs the same number of steps (DDP needs
        # that); the padded repeats are not counted in samples_done.
        pad = (-len(rest)) % self.num_replicas
        rest += rest[:pad]
        return iter(rest[self.rank::self.num_replicas])

    def __len__(self):
        return -(-len(self._remaining()) // self.num_replicas)


def load_data():
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0  # pixels are 0..16
    y = torch.tensor(digits.target, dtype=torch.int64)
    return TensorDataset(x, y)


def save_checkpoint(path, state):
    # Write a temporary file and rename it: a worker killed while saving (torchrun kills
    # workers at any moment when the world changes) leaves the previous checkpoint intact.
    tmp = f"{path}.tmp.{socket.gethostname()}.{os.getpid()}"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def append_lines(path, records):
    # One write() on an O_APPEND file: a killed worker leaves whole lines behind.
    if not records:
        return
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def last_logged_step(path):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read().splitlines()
    except FileNotFoundError:
        return 0
    return json.loads(tail[-1])["step"] if tail else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", required=True, help="directory for checkpoint.pt (shared by all nodes)")
    p.add_argument("--progress", help="progress log (default: CHECKPOINT/progress.jsonl)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32, help="per worker; the global batch grows with the world")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--checkpoint-every", type=int, default=10, help="steps between checkpoints (also at every epoch end)")
    p.add_argument("--step-sleep", type=float, default=0.0,
                   help="seconds to sleep per step, standing in for a model that is worth distributing")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    torch.set_num_threads(1)  # one worker per core; the model is tiny anyway
    # torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT for every worker start.
    # The timeout bounds how long survivors wait in a collective for a vanished peer
    # (normally they fail at once: the peer's sockets close).
    torch_compat.stores_without_libuv_if_missing()  # the store this worker connects to
    dist.init_process_group("gloo", timeout=timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()

    os.makedirs(args.checkpoint, exist_ok=True)
    ckpt_path = os.path.join(args.checkpoint, "checkpoint.pt")
    progress = args.progress or os.path.join(args.checkpoint, "progress.jsonl")

    torch.manual_seed(args.seed)  # same initial weights everywhere (DDP broadcasts rank 0's anyway)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    # Rank 0 reads the checkpoint and sends it to the others, so all resume from the same one.
    state = [torch.load(ckpt_path) if rank == 0 and os.path.exists(ckpt_path) else None]
    dist.broadcast_object_list(state, src=0)
    state = state[0] or {"epoch": 0, "epoch_pos": 0, "step": 0, "samples_done": 0, "attempt": 0}
    if "model" in state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])
    if rank == 0:
        # The checkpoint carries the log lines of the steps it covers that were pending when it
        # was saved: if the last run died between saving it and appending them, append now.
        last = last_logged_step(progress)
        append_lines(progress, [r for r in state.get("lines", []) if r["step"] > last])
    epoch, pos, step = state["epoch"], state["epoch_pos"], state["step"]
    samples_done, attempt = state["samples_done"], state["attempt"] + 1

    ddp = DistributedDataParallel(model)
    data = load_data()
    n = len(data)
    sampler = ResumableDistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
    loss_fn = nn.CrossEntropyLoss()
    if rank == 0:
        print(f"attempt {attempt}: world_size {world}, resuming at epoch {epoch} position {pos} step {step}",
              flush=True)

    pending = []  # rank 0: log lines of steps not yet in a checkpoint
    while epoch < args.epochs:
        sampler.set_epoch(epoch, start=pos)
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(ddp(x), y)
            loss.backward()  # DDP averages the gradients over the workers here
            opt.step()
            if args.step_sleep > 0:
                time.sleep(args.step_sleep)

            # The step consumed the next B*W positions of the permutation (fewer at the end).
            done_now = min(args.batch_size * world, n - pos)
            pos += done_now
            samples_done += done_now
            step += 1
            mean_loss = loss.detach().clone()
            dist.all_reduce(mean_loss)
            if rank == 0:
                pending.append({"step": step, "epoch": epoch, "epoch_pos": pos,
                                "loss": round(mean_loss.item() / world, 6), "world_size": world,
                                "samples_done": samples_done, "time": round(time.time(), 3),
                                "attempt": attempt})
            epoch_end = pos >= n
            if epoch_end:
                epoch, pos = epoch + 1, 0
            if rank == 0 and (epoch_end or step % args.checkpoint_every == 0):
                save_checkpoint(ckpt_path, {"model": model.state_dict(), "optim": opt.state_dict(),
                                            "epoch": epoch, "epoch_pos": pos, "step": step,
                                            "samples_done": samples_done, "attempt": attempt,
                                            "lines": pending})
                append_lines(progress, pending)
                pending = []
            if epoch_end:
                break
        if rank == 0:
            print(f"epoch {epoch - 1} done at step {step}, world_size {world}", flush=True)

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
