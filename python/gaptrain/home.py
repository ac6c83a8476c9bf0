"""The home mode's rules for who may post the next plan (group.py runs them).

In the home mode the batch script runs on a home node that never trains, and serves the store
there (store_host.py). No worker is rank 0 for the job's whole life: any training node may be
taken at any moment, the first too, and a job may have no training node at all for a while
(*paused*). So the plans are posted by whoever a rule picks at each change, safely:

* **One poster a plan number.** Plan K+1 is posted only by the worker that holds ``claim/K``,
  set by compare-and-set in the store (``"NODE:TOKEN"``): of any number of workers that try at
  once, exactly one wins, and the plan numbers stay one by one. Who tries:

  - at a regroup of plan K, each member of K that stays (it marked ``alive/K/NODE``): the
    winner posts the survivors (then the newcomers ready) in the job file's order, a survivor
    first, since rank 0 sends its state to all;
  - a member that leaves (``leaving/K/NODE``) tries only when every member of K leaves: the
    winner saves the checkpoint (the state of the last completed step) and posts a paused plan.
    Every member marks before it looks at the others' marks, so the last to mark sees every
    mark: a pause is never missed when every member says it leaves;
  - a worker that finds no live group (no plan yet, a paused plan, or a plan whose every member
    is gone) tries to start: the winner restores from the checkpoint and posts the first plan.

* **A holder that is gone is replaced.** A worker process is certainly gone when its node is in
  neither the job file's ``nodes`` nor its ``leaving`` (gaptrain-launch drops a leaving node
  once its step ended) or a newer process of its node announced itself (the launcher starts one
  step a node at a time). A claim held by such a process, with no plan posted after it, is
  taken over (compare-and-set again, from its value): a claimant killed between its claim and
  its post (past Slurm's GraceTime) does not stop the job.
"""
from __future__ import annotations

from .jobfile import JobView
from .store import JobStore, Plan


def claimant(node: str, token: int) -> str:
    return f"{node}:{token}"


def process_gone(store: JobStore, view: JobView, node: str, token: int) -> bool:
    """Whether the worker process ``token`` of ``node`` has certainly ended."""
    return (node not in view.nodes and node not in view.leaving) or store.token_of(node) > token


def claim_next(store: JobStore, number: int, node: str, token: int, view: JobView) -> bool:
    """Whether this process (``token`` of ``node``) is the one to post plan ``number + 1``;
    False when another holds the claim, or a plan after ``number`` was posted already."""
    key, me = f"claim/{number}", claimant(node, token)
    holder = store.claim(key, me)
    if holder != me:
        holder_node, _, holder_token = holder.rpartition(":")
        if not process_gone(store, view, holder_node, int(holder_token)):
            return False
        if not store.take_over(key, holder, me):
            return False
    # A holder that ended may have posted before it did: then there is nothing to post.
    return store.latest_plan_number() == number


def group_is_live(store: JobStore, view: JobView, plan: Plan) -> bool:
    """Whether some member of ``plan`` may still be training (a paused plan has none)."""
    return any(not process_gone(store, view, node, token) for node, token in plan.members)


def everyone_leaves(store: JobStore, view: JobView, plan: Plan) -> bool:
    """Whether every member of ``plan`` leaves: it said so (``leaving/K/NODE``), or said
    nothing and its node is being given back. One that said it stays (``alive/K/NODE``), or
    said nothing on a node still the job's, may post the next plan itself."""
    for node, _ in plan.members:
        if store.count(f"alive/{plan.number}/{node}") > 0:
            return False
        if store.count(f"leaving/{plan.number}/{node}") > 0:
            continue
        if node in view.nodes and node not in view.leaving:
            return False
    return True
