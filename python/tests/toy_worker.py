"""A worker of the tests' elastic jobs: a tiny model on synthetic data in its own loop on
gaptrain.ElasticJob, with a StepLR scheduler and a carried dict. Its steps are slow
(--step-sleep) until the file $TOY_PACE exists, so the training outlasts the test's resizes
whatever the machine's load. Each step appends one JSON line to $TOY_LOG.NODE.PID: the indices
it trained, its rank, world size, step, the scheduler's count and a checksum of the model after
the step; with --evaluate, each epoch's evaluation one more (the workers it summed over)."""
import argparse
import json
import os
import time

import torch

import gaptrain


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--samples", type=int, default=960)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=8, help="the global batch")
    p.add_argument("--order", default="shuffle")
    p.add_argument("--loader-workers", type=int, default=0, help="the DataLoader's worker processes")
    p.add_argument("--stream-state", action="store_true",
                   help="order streams: a state per stream counting its windows, logged beside the indices")
    p.add_argument("--checkpoint-every-s", type=float, default=2.0)
    p.add_argument("--step-sleep", type=float, default=0.2)
    p.add_argument("--after-step-sleep", type=float, default=0.0,
                   help="until $TOY_PACE exists: a sleep after the step is logged, its collectives behind it "
                        "(a prediction, a plot)")
    p.add_argument("--leave-within-s", type=float, default=0.5)
    p.add_argument("--lr-rule", default="adascale")
    p.add_argument("--lr", type=float, default=0.1,
                   help="a small one keeps the gradient large: 0.1 converges in a dozen steps, after which "
                        "no noise scale can be told from the steps")
    p.add_argument("--amp", action="store_true",
                   help="bfloat16 autocast and a GradScaler (disabled on a CPU, carried all the same)")
    p.add_argument("--extra-backward", action="store_true",
                   help="a second backward pass a step, of the loss times 0 (averages the gradients again)")
    p.add_argument("--evaluate", action="store_true",
                   help="after each epoch's loop, an evaluation: a collective of the group (logged)")
    args = p.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.samples, 8)
    y = (x.sum(dim=1) > 0).long()
    data = torch.utils.data.TensorDataset(torch.arange(args.samples), x, y)
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=50, gamma=0.9)
    stats = {"steps": 0}
    job = gaptrain.ElasticJob(args.checkpoint, timeout_s=20, checkpoint_every_s=args.checkpoint_every_s,
                              lr_rule=args.lr_rule, leave_within_s=args.leave_within_s)
    scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
    job.carry(model=model, optimizer=opt, scheduler=scheduler, stats=stats, scaler=scaler)
    loader = job.loader(data, batch_size=args.batch_size, order=args.order, num_workers=args.loader_workers)
    counts = loader.stream_state(lambda n: torch.zeros(n)) if args.stream_state else None
    log = open(f"{os.environ['TOY_LOG']}.{os.environ['SLURMD_NODENAME']}.{os.getpid()}", "a")
    loss_fn = torch.nn.CrossEntropyLoss()
    for epoch in job.epochs(args.epochs):
        trained: list[int] = []
        for ids, xb, yb in loader:
            if not os.path.exists(os.environ["TOY_PACE"]):  # the test's resizes are not done yet
                time.sleep(args.step_sleep)  # the step's computation, standing in for a model's
            trained += ids.tolist() if job._micro.weight else []
            if counts is not None:  # each stream's count of windows so far in the epoch
                counted = counts.get() + 1
                counts.set(counted)
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.amp):
                loss = loss_fn(model(xb), yb)
            scaler.scale(loss).backward(retain_graph=args.extra_backward)
            if args.extra_backward:
                (loss * 0).backward()
            if job.accumulating:  # a micro-batch of a larger share: the step goes on
                continue
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            scheduler.step()
            stats["steps"] += 1
            trained, indices = [], trained
            if job._step_broken:
                continue
            # Weighted by position: a plain sum of the weights stays constant under a softmax
            # cross entropy's gradients.
            checksum = sum(float((p.detach().double().reshape(-1) *
                                  torch.arange(1, p.numel() + 1, dtype=torch.float64)).sum())
                           for p in model.parameters())
            log.write(json.dumps({"epoch": epoch, "indices": indices,
                                  "stream_counts": counted.tolist() if counts is not None else [],
                                  "node": os.environ["SLURMD_NODENAME"], "rank": job.rank,
                                  "world": job.world_size,
                                  "step": job.position.step + 1, "checksum": checksum,
                                  "scheduler_steps": scheduler.last_epoch, "stats_steps": stats["steps"],
                                  "global_batch": job._global_batch(),
                                  "lr_factor": job.batching.lr_factor}) + "\n")
            log.flush()
            if args.after_step_sleep and not os.path.exists(os.environ["TOY_PACE"]):
                time.sleep(args.after_step_sleep)
        if args.evaluate:  # every member of the group joins it, newcomers of the last step included
            workers = job.all_reduce(1.0)
            log.write(json.dumps({"evaluated": epoch, "node": os.environ["SLURMD_NODENAME"],
                                  "world": job.world_size, "workers": workers}) + "\n")
            log.flush()


if __name__ == "__main__":
    main()
