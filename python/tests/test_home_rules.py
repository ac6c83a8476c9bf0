"""The home mode's parts on their own: who may post a plan (home.py, on a real TCPStore), the
launch context's home mode, torchrun's agents as clients of the home node's store, and the
store host as gaptrain-launch runs it."""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from fake_launch import PACKAGE_ROOT, free_port
from gaptrain.home import claim_next, claimant, everyone_leaves, group_is_live
from gaptrain.jobfile import JobView, LaunchContext, LaunchContextError
from gaptrain.store import JobStore, Plan
from gaptrain.torchrun import torchrun_arguments


class Served:
    """A job's store served in this process, and how to reach it."""

    def __init__(self) -> None:
        self.port, self.secret = free_port(), secrets.token_hex(8)
        self.server = JobStore("127.0.0.1", self.port, True, 10.0, self.secret)

    def client(self) -> JobStore:
        return JobStore("127.0.0.1", self.port, False, 10.0, self.secret)


@pytest.fixture
def served() -> Served:
    return Served()


@pytest.fixture
def store(served: Served) -> JobStore:
    return served.server


def view(nodes: list[str], leaving: list[str] = ()) -> JobView:
    return JobView(job_id=7, generation=1, nodes=tuple(nodes), leaving=tuple(leaving))


def test_of_many_claimants_at_once_exactly_one_posts_the_next_plan(served: Served) -> None:
    store = served.server
    store.post(Plan(1, (("n1", 1), ("n2", 1))))
    clients = [served.client() for _ in range(8)]
    won: list[int] = []
    barrier = threading.Barrier(len(clients))

    def contend(i: int) -> None:
        barrier.wait()
        if claim_next(clients[i], 1, f"n{i}", 1, view([f"n{i}" for i in range(8)])):
            won.append(i)

    threads = [threading.Thread(target=contend, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1
    assert store.claim("claim/1", "late:1") == claimant(f"n{won[0]}", 1)


def test_a_claim_of_a_live_worker_stands_and_one_of_a_gone_worker_is_taken_over(store: JobStore) -> None:
    store.post(Plan(1, (("n1", 1), ("n2", 1))))
    store.announce("n1")
    store.announce("n2")
    assert claim_next(store, 1, "n1", 1, view(["n1", "n2"]))
    # n1's worker still runs (its node is the job's, or leaving): its claim stands.
    assert not claim_next(store, 1, "n2", 1, view(["n1", "n2"]))
    assert not claim_next(store, 1, "n2", 1, view(["n2"], leaving=["n1"]))
    # A newer process on n1 (the launcher starts one step a node at a time): taken over.
    store.announce("n1")
    assert claim_next(store, 1, "n2", 1, view(["n1", "n2"]))
    # n2 given back and its step ended (in neither nodes nor leaving): taken over.
    assert not claim_next(store, 1, "n1", 2, view(["n1", "n2"]))
    assert claim_next(store, 1, "n1", 2, view(["n1"]))


def test_a_claim_taken_over_after_its_holder_posted_posts_nothing(store: JobStore) -> None:
    store.post(Plan(1, (("n1", 1),)))
    assert claim_next(store, 1, "n1", 1, view(["n1"]))
    store.post(Plan(2, (), paused=True))  # the holder posted, then ended
    assert not claim_next(store, 1, "n2", 1, view(["n2"]))  # nothing left to post
    assert claim_next(store, 2, "n2", 1, view(["n2"]))  # the start after the pause


def test_a_pause_needs_every_member_leaving(store: JobStore) -> None:
    plan = Plan(3, (("n1", 1), ("n2", 1), ("n3", 1)))
    all_nodes = view(["n1", "n2", "n3"])
    store.count("leaving/3/n1", 1)
    assert not everyone_leaves(store, all_nodes, plan)  # n2 and n3 said nothing, still the job's
    assert everyone_leaves(store, view([], leaving=["n1", "n2", "n3"]), plan)  # their nodes go
    store.count("leaving/3/n2", 1)
    store.count("leaving/3/n3", 1)
    assert everyone_leaves(store, all_nodes, plan)  # SIGTERM to all: each said it leaves
    store.count("alive/3/n2", 1)
    assert not everyone_leaves(store, all_nodes, plan)  # one that stays posts the next plan


def test_a_group_is_live_while_a_member_may_still_run(store: JobStore) -> None:
    plan = Plan(2, (("n1", 1), ("n2", 1)))
    store.announce("n1")
    store.announce("n2")
    assert group_is_live(store, view(["n1", "n2"]), plan)
    assert group_is_live(store, view([], leaving=["n2"]), plan)  # n2 may be saving the pause
    assert not group_is_live(store, view(["n3"]), plan)  # both nodes given back, their steps ended
    store.announce("n1")
    assert group_is_live(store, view(["n1", "n2"]), plan)
    store.announce("n2")
    assert not group_is_live(store, view(["n1", "n2"]), plan)  # both nodes run newer processes
    assert not group_is_live(store, view(["n1"]), Plan(3, (), paused=True))


def test_plans_carry_the_pause() -> None:
    assert Plan.from_json(Plan(4, (), paused=True).to_json()).paused
    assert not Plan.from_json('{"number": 2, "members": [["n1", 1]], "done": false}').paused


ENV = {"GAPTRAIN_MASTER_ADDR": "home", "GAPTRAIN_JOB_ID": "42", "SLURMD_NODENAME": "n1",
       "GAPTRAIN_RDZV_HOST": "10.1.0.9", "GAPTRAIN_RDZV_PORT": "41000", "GAPTRAIN_STORE_SECRET": "0123abcd"}


def test_in_the_home_mode_no_worker_is_the_batch_host() -> None:
    assert LaunchContext.from_env(ENV).is_batch_host is False  # "home" is not n1: as before
    today = LaunchContext.from_env(dict(ENV, GAPTRAIN_MASTER_ADDR="n1"))
    assert today.is_batch_host and not today.home_mode
    home = LaunchContext.from_env(dict(ENV, GAPTRAIN_MASTER_ADDR="n1", GAPTRAIN_HOME_MODE="1"))
    assert home.home_mode and not home.is_batch_host
    assert not LaunchContext.from_env(dict(ENV, GAPTRAIN_MASTER_ADDR="n1", GAPTRAIN_HOME_MODE="0")).home_mode
    with pytest.raises(LaunchContextError, match="GAPTRAIN_HOME_MODE is 'yes'"):
        LaunchContext.from_env(dict(ENV, GAPTRAIN_HOME_MODE="yes"))


def test_in_the_home_mode_every_torchrun_agent_is_a_client_of_the_store_host() -> None:
    env = dict(ENV, GAPTRAIN_MASTER_ADDR="n1", GAPTRAIN_HOME_MODE="1")
    args = torchrun_arguments(LaunchContext.from_env(env), ["train.py"], env)
    assert "--rdzv_conf=is_host=0,last_call_timeout=5" in args
    assert "--rdzv_endpoint=10.1.0.9:41000" in args


def store_host_env(port: int, secret: str) -> dict[str, str]:
    return dict(os.environ, GAPTRAIN_MASTER_ADDR="home", GAPTRAIN_JOB_ID="7", SLURMD_NODENAME="home",
                GAPTRAIN_HOME_MODE="1", GAPTRAIN_RDZV_HOST="127.0.0.1", GAPTRAIN_RDZV_PORT=str(port),
                GAPTRAIN_STORE_SECRET=secret,
                PYTHONPATH=str(PACKAGE_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def test_the_store_host_serves_the_job_until_sigterm(tmp_path: Path) -> None:
    port, secret = free_port(), secrets.token_hex(8)
    host = subprocess.Popen([sys.executable, "-m", "gaptrain.store_host"], env=store_host_env(port, secret),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert host.stdout is not None
        assert host.stdout.readline().startswith(f"gaptrain.store_host: serving job 7's store at 127.0.0.1:{port}")
        worker = JobStore("127.0.0.1", port, False, 10.0, secret)
        assert worker.announce("n1") == 1
        assert JobStore("127.0.0.1", port, False, 10.0, secret).token_of("n1") == 1
        host.send_signal(signal.SIGTERM)
        assert host.wait(30) == 0
    finally:
        host.kill()
        host.wait()


def test_the_store_host_says_what_is_missing_or_wrong() -> None:
    env = store_host_env(free_port(), "")
    done = subprocess.run([sys.executable, "-m", "gaptrain.store_host"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "GAPTRAIN_STORE_SECRET is not set" in done.stderr
    taken = Served()  # the port served already
    done = subprocess.run([sys.executable, "-m", "gaptrain.store_host"],
                          env=store_host_env(taken.port, "0123"), capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "is the port free" in done.stderr, done.stderr
