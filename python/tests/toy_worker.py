"""A worker of the tests' elastic jobs: a tiny model on synthetic data under ElasticLoop. Its
steps are slow (--step-sleep) until the file $TOY_PACE exists, so the training outlasts the
test's resizes whatever the machine's load. Each step appends one JSON line to $TOY_LOG.NODE.PID: the indices it trained, its rank, world size,
step and a checksum of the model after the step."""
import argparse
import json
import os
import time

import torch

from gaptrain import ElasticLoop


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--samples", type=int, default=960)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--checkpoint-every-s", type=float, default=2.0)
    p.add_argument("--step-sleep", type=float, default=0.2)
    p.add_argument("--lr-rule", default="adascale")
    args = p.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.samples, 8)
    y = (x.sum(dim=1) > 0).long()
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loop = ElasticLoop(model, opt, dataset_size=args.samples, batch_size=args.batch_size,
                       epochs=args.epochs, checkpoint_dir=args.checkpoint, timeout_s=20,
                       checkpoint_every_s=args.checkpoint_every_s, lr_rule=args.lr_rule)
    log = open(f"{os.environ['TOY_LOG']}.{os.environ['SLURMD_NODENAME']}.{os.getpid()}", "a")
    loss_fn = torch.nn.CrossEntropyLoss()
    for indices in loop:
        epoch = loop.position.epoch
        loss = loss_fn(model(x[indices]), y[indices])
        weight = loop._share_weight
        if not loop.step(loss):
            continue
        if not os.path.exists(os.environ["TOY_PACE"]):  # the test's resizes are not done yet
            time.sleep(args.step_sleep)
        checksum = float(sum(p.detach().double().sum() for p in model.parameters()))
        log.write(json.dumps({"epoch": epoch, "indices": indices if weight else [],
                              "rank": loop.rank, "world": loop.world_size,
                              "step": loop.position.step, "checksum": checksum,
                              "global_batch": loop._step_batch().global_batch,
                              "lr_factor": loop.batching.agreed[2]}) + "\n")
        log.flush()


if __name__ == "__main__":
    main()
