"""What differs between the torch releases this example runs on (1.13 ... 2.6), in one place.

Each fix applies only where the installed torch has the trait, asked of torch itself (not of
its version or of the distribution):

  * No libuv (Debian builds torch 2.4 and later without it): torch then still asks for libuv
    stores by default, and every agent and worker fails at once with "use_libuv was requested
    but PyTorch was build without libuv support". The rendezvous backends and the workers'
    env:// rendezvous create their TCPStores without asking USE_LIBUV in every path, so
    stores_without_libuv_if_missing() makes TCPStore default to use_libuv=False in this
    process. torchrun's agent (elastic_run.py) and every worker (train_digits.py) call it.

  * An agent that closes the rendezvous when it is stopped (torch 2.x: LocalElasticAgent's
    _shutdown calls the rendezvous handler's shutdown() unless it restarts, also when the agent
    dies by SIGTERM). Closing is final for the whole job: every other agent then ends with
    RendezvousClosedError. gaptrain stops the agent of a node it gives back with SIGTERM, so
    keep_rendezvous_open_on_signal() makes an agent stopped by a signal leave the rendezvous
    open, as torch 1.13 did and as torchrun's own launcher intends (launch_agent keeps it open
    on a SignalException): the others drop the node once its heartbeats stop and go on. An
    agent that ends for any other reason (training done, failure) still closes it.

  * A store for the workers shared with the agent's rendezvous (torch 2.x's dynamic rendezvous:
    the agent of rank 0 serves it). Each agent keeps the address it learnt in its first round,
    but rank 0 can move to another node in a later round (ranks follow the sorted participants
    of each round): after a node joined, the workers of a 2-node world waited on two different
    stores until gloo's timeout. one_worker_store_per_round() asks for the stores of torch
    1.13: rank 0's worker serves a fresh one each round.
"""
import inspect
import os
import sys

import torch.distributed as dist


def libuv_missing():
    """True when TCPStore takes use_libuv but this torch was built without it."""
    try:
        store = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, use_libuv=True)
    except TypeError:
        return False  # torch 1.x: no use_libuv option, and no libuv
    except (RuntimeError, ValueError) as e:
        if "libuv" in str(e):
            return True
        raise
    del store
    return False


def _stores_without_libuv():
    os.environ["USE_LIBUV"] = "0"  # inherited by the workers
    original = dist.TCPStore

    class TCPStoreWithoutLibuv(original):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("use_libuv", False)
            super().__init__(*args, **kwargs)

    # The modules that name TCPStore directly (imported from torch.distributed) and
    # torch.distributed itself (the dynamic rendezvous calls dist.TCPStore).
    import torch.distributed.elastic.rendezvous.c10d_rendezvous_backend  # noqa: F401
    import torch.distributed.rendezvous  # noqa: F401

    for name, module in list(sys.modules.items()):
        if name.startswith("torch.distributed") and getattr(module, "TCPStore", None) is original:
            module.TCPStore = TCPStoreWithoutLibuv


def keep_rendezvous_open_on_signal():
    """torchrun's agent, where it closes the rendezvous on every stop: one stopped by a signal
    leaves it open. For the agent's process (elastic_run.py) only."""
    from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent
    from torch.distributed.elastic.multiprocessing.api import SignalException

    shutdown = LocalElasticAgent._shutdown
    if "is_restart" not in inspect.signature(shutdown).parameters:
        return  # this torch's agent leaves the rendezvous to the launcher (1.13, and later ones)

    def shutdown_keeping_rendezvous_on_signal(self, *args, **kwargs):
        # Called from SimpleElasticAgent.run's `except SignalException` block: the exception
        # being handled is the signal. is_restart=True skips only the rendezvous' shutdown.
        if isinstance(sys.exc_info()[1], SignalException):
            kwargs["is_restart"] = True
        return shutdown(self, *args, **kwargs)

    LocalElasticAgent._shutdown = shutdown_keeping_rendezvous_on_signal


def one_worker_store_per_round():
    """torchrun's agent, where it shares its rendezvous store with the workers: a fresh store
    each round instead (TORCH_DISABLE_SHARE_RDZV_TCP_STORE, torch's own switch for that)."""
    from torch.distributed.elastic.rendezvous.dynamic_rendezvous import DynamicRendezvousHandler

    if hasattr(DynamicRendezvousHandler, "_create_tcp_store_server"):
        os.environ["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] = "1"


def stores_without_libuv_if_missing():
    """TCPStore defaults to use_libuv=False in this process (and USE_LIBUV=0 for its children)
    when this torch takes use_libuv but was built without libuv; otherwise nothing changes."""
    if libuv_missing():
        _stores_without_libuv()
