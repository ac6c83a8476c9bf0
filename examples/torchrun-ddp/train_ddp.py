#!/usr/bin/env python3
"""An ordinary torchrun script in the style of PyTorch's DDP tutorial (multinode.py): it knows
nothing of gaptrain. It reads LOCAL_RANK/RANK/WORLD_SIZE, trains with DistributedDataParallel,
saves a snapshot every epoch and resumes from it whenever torchrun restarts it (on every resize).

    gaptrain submit -N 1-4 --torchrun train_ddp.py --snapshot /shared/run/snapshot.pt --epochs 20
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Trainer:
    def __init__(self, model, data, optimizer, snapshot_path):
        self.rank = int(os.environ["RANK"])
        self.model, self.data, self.optimizer = model, data, optimizer
        self.snapshot_path, self.epochs_run = snapshot_path, 0
        if os.path.exists(snapshot_path):
            snapshot = torch.load(snapshot_path, map_location="cpu")
            self.model.load_state_dict(snapshot["MODEL_STATE"])
            self.epochs_run = snapshot["EPOCHS_RUN"]
            print(f"rank {self.rank}: resuming from the snapshot at epoch {self.epochs_run}", flush=True)
        self.model = DDP(self.model)

    def _run_epoch(self, epoch, step_sleep):
        self.data.sampler.set_epoch(epoch)
        for source, targets in self.data:
            self.optimizer.zero_grad()
            F.cross_entropy(self.model(source), targets).backward()
            self.optimizer.step()
            time.sleep(step_sleep)

    def _save_snapshot(self, epoch):
        tmp = self.snapshot_path + ".tmp"
        torch.save({"MODEL_STATE": self.model.module.state_dict(), "EPOCHS_RUN": epoch + 1}, tmp)
        os.replace(tmp, self.snapshot_path)  # a worker killed while saving leaves the last one
        print(f"epoch {epoch} done, world size {dist.get_world_size()}: snapshot saved", flush=True)

    def train(self, max_epochs, step_sleep):
        for epoch in range(self.epochs_run, max_epochs):
            self._run_epoch(epoch, step_sleep)
            if self.rank == 0:
                self._save_snapshot(epoch)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--snapshot", required=True)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--step-sleep", type=float, default=0.0)
    args = p.parse_args()
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(2048, 20), torch.randint(0, 2, (2048,)))
    loader = DataLoader(data, batch_size=args.batch_size, sampler=DistributedSampler(data))
    model = torch.nn.Linear(20, 2)
    trainer = Trainer(model, loader, torch.optim.SGD(model.parameters(), lr=1e-3), args.snapshot)
    trainer.train(args.epochs, args.step_sleep)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
