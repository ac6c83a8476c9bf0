"""gaptrain's job-side helper: elastic data-parallel training in the researcher's own loop, on
the nodes gaptrain gives a job.

    import gaptrain
    job = gaptrain.ElasticJob(checkpoint_dir=args.checkpoint)
    job.carry(model=model, optimizer=optimizer, scheduler=scheduler)
    loader = job.loader(train_set, batch_size=64)      # the global batch
    for epoch in job.epochs(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()             # gradients averaged over the workers
            optimizer.step()
            scheduler.step()

Run it with ``gaptrain submit -N MIN-MAX -- python3 SCRIPT ...``. docs/user.md has the
reference and a porting guide, docs/job-side.md how it follows resizes in-process;
``python3 -m gaptrain.torchrun`` runs scripts written for torchrun instead.
"""
from .carried import RandomState
from .elastic import ElasticJob, ElasticLoader
from .group import EXIT_START_AGAIN
from .jobfile import JobView, LaunchContext, LaunchContextError
from .positions import DataPosition

__all__ = ["ElasticJob", "ElasticLoader", "RandomState", "DataPosition", "JobView", "LaunchContext",
           "LaunchContextError", "EXIT_START_AGAIN"]
__version__ = "0.2.0"
