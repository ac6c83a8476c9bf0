"""Another local user who reaches the job's rendezvous store (its port answers anyone) tries to
steer the training: mark a member as leaving, post a plan that ends the training. Without the
job's secret neither reaches the workers: they keep their group and train every sample."""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
import torch.distributed as dist

from fake_launch import HERE, FakeJob
from gaptrain.compat import tcp_store
from test_regroup import EPOCHS, SAMPLES, assert_every_sample_once_per_epoch


@pytest.fixture
def job(tmp_path: Path):
    j = FakeJob(tmp_path, [str(HERE / "toy_worker.py"), "--checkpoint", str(tmp_path / "ckpt"),
                           "--samples", str(SAMPLES), "--epochs", str(EPOCHS)])
    yield j
    j.kill()


def hostile_client(port: int) -> dist.TCPStore:
    return tcp_store("127.0.0.1", port, False, timedelta(seconds=10))


def test_a_peer_without_the_secret_cannot_steer_the_group(job: FakeJob) -> None:
    job.write_job_file(["n1", "n2"])
    job.start("n1")
    job.start("n2")
    job.wait_for_world(2)
    peer = hostile_client(job.port)
    # What the keys would be without a secret (store.py's names): every plan number a guess.
    for number in range(0, 8):
        peer.add(f"leaving/{number}/n2", 1)
        peer.set(f"plan/{number + 1}", json.dumps({"number": number + 1, "members": [], "done": True}))
    peer.add("plan/latest", 8)
    job.write_job_file(["n1", "n2", "n3"])  # a grow: rank 0 posts a plan the peer raced
    job.start("n3")
    job.wait_for_world(3)
    job.full_speed()
    statuses = job.finish()
    assert statuses == {"n1": 0, "n2": 0, "n3": 0}, job.outputs()
    assert len(job.procs["n2"]) == 1, "n2 was pushed out of the group and started again"
    assert "left out of the group" not in job.outputs(), job.outputs()
    assert job.progress_lines()[-1]["samples_done"] == SAMPLES * EPOCHS
    assert_every_sample_once_per_epoch(job)
    assert max(line["world"] for line in job.steps_logged()) == 3


def test_the_helper_refuses_to_start_without_the_secret() -> None:
    from gaptrain.jobfile import LaunchContext, LaunchContextError

    env = {"GAPTRAIN_MASTER_ADDR": "n1", "GAPTRAIN_JOB_ID": "7", "SLURMD_NODENAME": "n1"}
    with pytest.raises(LaunchContextError, match="GAPTRAIN_STORE_SECRET"):
        LaunchContext.from_env(env).require_store_secret()
