"""What differs between the torch releases gaptrain runs on (Debian's 1.13 ... 2.6), in one
place. Each fix is chosen by asking torch itself, not its version number.

* **libuv.** torch 2.4 and later ask for libuv TCPStores by default, but Debian builds torch
  without libuv: every store then fails with "use_libuv was requested but PyTorch was build
  without libuv support". Our own stores pass ``use_libuv=False`` where the option exists;
  torchrun's (``stores_without_libuv_if_missing``) are patched to default to it.
* **An agent stopped by a signal closes the rendezvous** (torch 2.x: the agent's shutdown closes
  it unless it restarts, also on SIGTERM). Closing is final for the whole job, and gaptrain stops
  the agent of every node it gives back with SIGTERM: ``keep_rendezvous_open_on_signal`` leaves
  it open then, as torch 1.13 did; the others drop the node when its heartbeats stop.
* **The last collectives' tensors held until their group is gone** (``all_reduce``,
  ``destroy_process_group``): torch 2.6's gloo group joins its worker threads in its destructor
  while holding the GIL, and a worker thread that drops the last reference to a collective's
  tensor needs the GIL to free it: both wait forever. Under load a regroup (the old group's
  destroy) and the training's end hung so on Debian 13's torch. The helper's collectives keep
  their tensor and work here until the group is destroyed, so a worker thread never drops the
  last reference. (Keeping the whole group alive instead let a later group's gloo pairs read a
  kept group's message on torch 1.13.)
* **One store for the agent's rendezvous and the workers** (torch 2.x): rank 0's node can change
  between rounds while each agent keeps the address of the first; workers of one world then
  wait on two stores. ``one_worker_store_per_round`` asks for a fresh store each round (torch's
  own TORCH_DISABLE_SHARE_RDZV_TCP_STORE), as 1.13 does.
"""
from __future__ import annotations

import inspect
import os
import sys
from collections import deque
from datetime import timedelta

import torch.distributed as dist


def tcp_store(host: str, port: int, serve: bool, timeout: timedelta) -> dist.TCPStore:
    """A TCPStore without libuv where this torch has the option (libuv buys nothing for the few
    dozen clients of one job's store, and Debian's torch lacks it)."""
    try:
        return dist.TCPStore(host, port, None, serve, timeout, wait_for_workers=False, use_libuv=False)
    except TypeError:  # torch 1.x: no such option, and no libuv
        return dist.TCPStore(host, port, None, serve, timeout, wait_for_workers=False)


# The helper's most recent collectives (work, tensor), held until their group is destroyed. A
# group has two worker threads, so a few are plenty.
_recent_collectives: deque = deque(maxlen=8)


def all_reduce(tensor) -> None:
    """``dist.all_reduce(tensor)`` (a sum, in place), its work and tensor held until
    :func:`destroy_process_group` (see the module's docstring)."""
    work = dist.all_reduce(tensor, async_op=True)
    _recent_collectives.append((work, tensor))
    work.wait()


def destroy_process_group() -> None:
    """``dist.destroy_process_group()``, then the collectives' tensors it no longer runs are let go."""
    dist.destroy_process_group()
    _recent_collectives.clear()


def libuv_missing() -> bool:
    """True when TCPStore takes use_libuv but this torch was built without it."""
    try:
        store = dist.TCPStore("127.0.0.1", 0, None, True, timedelta(seconds=5),
                              wait_for_workers=False, use_libuv=True)
    except TypeError:
        return False  # torch 1.x: no use_libuv option, and no libuv
    except (RuntimeError, ValueError) as e:
        if "libuv" in str(e):
            return True
        raise
    del store
    return False


def stores_without_libuv_if_missing() -> None:
    """Makes TCPStore default to use_libuv=False in this process and its children where this
    torch takes the option but lacks libuv; otherwise changes nothing."""
    if not libuv_missing():
        return
    os.environ["USE_LIBUV"] = "0"
    original = dist.TCPStore

    class TCPStoreWithoutLibuv(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("use_libuv", False)
            super().__init__(*args, **kwargs)

    # torch.distributed itself and the modules that imported TCPStore by name.
    import torch.distributed.elastic.rendezvous.c10d_rendezvous_backend  # noqa: F401
    import torch.distributed.rendezvous  # noqa: F401

    for name, module in list(sys.modules.items()):
        if name.startswith("torch.distributed") and getattr(module, "TCPStore", None) is original:
            module.TCPStore = TCPStoreWithoutLibuv


def keep_rendezvous_open_on_signal() -> None:
    """In torchrun's agent process: an agent stopped by a signal leaves the rendezvous open."""
    from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent
    from torch.distributed.elastic.multiprocessing.api import SignalException

    shutdown = LocalElasticAgent._shutdown
    if "is_restart" not in inspect.signature(shutdown).parameters:
        return  # this torch's agent leaves the rendezvous alone (1.13)

    def shutdown_keeping_rendezvous_on_signal(self, *args, **kwargs):
        # Called while SimpleElasticAgent.run handles the SignalException; is_restart=True
        # skips only the rendezvous' shutdown.
        if isinstance(sys.exc_info()[1], SignalException):
            kwargs["is_restart"] = True
        return shutdown(self, *args, **kwargs)

    LocalElasticAgent._shutdown = shutdown_keeping_rendezvous_on_signal


def one_worker_store_per_round() -> None:
    """In torchrun's agent process: the workers get a fresh store each round."""
    from torch.distributed.elastic.rendezvous.dynamic_rendezvous import DynamicRendezvousHandler

    if hasattr(DynamicRendezvousHandler, "_create_tcp_store_server"):
        os.environ["TORCH_DISABLE_SHARE_RDZV_TCP_STORE"] = "1"
