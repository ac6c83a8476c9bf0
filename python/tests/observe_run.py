#!/usr/bin/env python3
"""Runs a training script written on gaptrain.ElasticJob as it is, observed by the tests:

    observe_run.py SCRIPT ARGS...

Every step a worker completes appends one JSON line to $OBSERVE_LOG.NODE.PID: the epoch, the
step, the plan (group) it trained in, its rank and world size, the dataset indices it trained in
the step, a checksum of every carried model and a digest of every other carried state (equal on
every rank when the state is carried right: a scheduler's count, an optimizer's history). A
worker that leaves in the middle of a step after its gradients were averaged logs the step with
"left_during": observed.py counts its samples if the others completed that step in that plan.
$OBSERVE_STEP_SLEEP (seconds) makes each step that much longer, standing in for a model worth
distributing, so that a test's resizes happen while the script trains."""
from __future__ import annotations

import hashlib
import json
import os
import runpy
import socket
import sys
import time
from typing import Any

import torch

from gaptrain import elastic
from gaptrain.carried import state_of

STEP_SLEEP = float(os.environ.get("OBSERVE_STEP_SLEEP") or 0)
_log: Any = None


def checksum(model: torch.nn.Module) -> float:
    # Weighted by position: a plain sum of a softmax layer's weights never changes.
    return sum(float((p.detach().double().reshape(-1) * torch.arange(1, p.numel() + 1, dtype=torch.float64)).sum())
               for p in model.parameters())


def canonical(value: Any) -> Any:
    """The values of a state, without the sharing between its tensors (a pickle differs where
    one rank's state shares a tensor between two entries and another's holds two copies). A
    tensor by a hash of its bytes: an L-BFGS history as lists of floats took over a second a
    step in json, and kept a leaving worker from leaving (it does not leave between steps)."""
    if isinstance(value, torch.Tensor):
        data = value.detach().cpu().contiguous()
        raw = data.reshape(-1).view(torch.uint8).numpy().tobytes()  # any dtype, bfloat16 too
        return [str(data.dtype), list(data.shape), hashlib.sha1(raw).hexdigest()]
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, float):
        return float(f"{value:.10g}")
    return value if isinstance(value, (int, str, bool, type(None))) else repr(value)


def digest(obj: Any) -> str:
    return hashlib.sha1(json.dumps(canonical(state_of(obj))).encode()).hexdigest()[:12]


def write(line: dict) -> None:
    global _log
    if _log is None:
        node = os.environ.get("SLURMD_NODENAME") or socket.gethostname()
        _log = open(f"{os.environ['OBSERVE_LOG']}.{node}.{os.getpid()}", "a")
    _log.write(json.dumps(line) + "\n")
    _log.flush()


original_begin = elastic.ElasticJob._begin_micro
original_end = elastic.ElasticJob._end_step


def begin(job: elastic.ElasticJob, micro: Any) -> None:
    if micro.first:
        job._observed = []  # type: ignore[attr-defined]
    job._observed += micro.indices if micro.weight else []  # type: ignore[attr-defined]
    original_begin(job, micro)
    if micro.first:
        time.sleep(STEP_SLEEP)  # inside the step: a worker leaving may abandon it


def end(job: elastic.ElasticJob) -> None:
    completed = job._in_step and not job._step_broken
    epoch, indices = job.position.epoch, getattr(job, "_observed", [])
    original_end(job)
    if not completed:
        return
    state: dict[str, Any] = {}
    for name, obj in job._carried.items():
        if isinstance(obj, torch.nn.Module):
            state[name] = round(checksum(obj), 9)
        else:
            state[name] = digest(obj)
            if hasattr(obj, "last_epoch"):
                state[f"{name}.last_epoch"] = obj.last_epoch
    write({"epoch": epoch, "step": job.position.step, "plan": job.plan.number if job.plan else 0,
           "rank": job.rank, "world": job.world_size, "indices": indices, "state": state})


original_abandon = elastic.ElasticJob._abandon_and_leave


def abandon(job: elastic.ElasticJob) -> None:
    """A worker leaving in the middle of a step: what it trained in it counts if the others
    finished that step (observed.py finds them), when its gradients were in."""
    if job._step_contributed():
        write({"epoch": job.position.epoch, "step": job.position.step + 1, "plan": job.plan.number if job.plan else 0,
               "rank": job.rank, "world": job.world_size, "indices": getattr(job, "_observed", []),
               "left_during": True})
    original_abandon(job)


elastic.ElasticJob._begin_micro = begin  # type: ignore[method-assign]
elastic.ElasticJob._end_step = end  # type: ignore[method-assign]
elastic.ElasticJob._abandon_and_leave = abandon  # type: ignore[method-assign]

if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: observe_run.py SCRIPT ARGS...")
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
    runpy.run_path(sys.argv[0], run_name="__main__")
