"""gaptrain's job-side helper: elastic data-parallel training on the nodes gaptrain gives a job.

    from gaptrain import ElasticLoop
    loop = ElasticLoop(model, optimizer, dataset_size=len(data), batch_size=32, epochs=10,
                       checkpoint_dir=args.checkpoint)
    for x, y in loop.batches(data):
        loop.step(loss_fn(model(x), y))

Run it with ``gaptrain submit -N MIN-MAX -- python3 SCRIPT ...``. docs/job-side.md explains
how it follows resizes in-process; ``python3 -m gaptrain.torchrun`` runs scripts written for
torchrun instead.
"""
from .jobfile import JobView, LaunchContext, LaunchContextError
from .loop import EXIT_START_AGAIN, ElasticLoop
from .positions import DataPosition

__all__ = ["ElasticLoop", "DataPosition", "JobView", "LaunchContext", "LaunchContextError", "EXIT_START_AGAIN"]
__version__ = "0.1.0"
