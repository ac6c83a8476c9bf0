"""The examples as a user runs them, on this machine without Slurm (fake_launch.py stands in
for gaptrain-launch): train_digits.py on the helper through a grow and a shrink."""
from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from fake_launch import FakeJob

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIGITS = 1797


def test_train_digits_follows_a_grow_and_a_shrink(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    epochs = 12  # at world size 1 at least 34 s: longer than a newcomer's start on a loaded machine
    job = FakeJob(tmp_path, [str(EXAMPLES / "pytorch-elastic" / "train_digits.py"),
                             "--checkpoint", str(tmp_path / "ckpt"), "--epochs", str(epochs),
                             "--step-sleep", "0.05"])
    try:
        job.write_job_file(["n1"])
        job.start("n1")
        job.wait_for_world(1)
        job.write_job_file(["n1", "n2"])
        job.start("n2")
        job.wait_for_world(2)
        # A notice, as gaptrain-launch gives it: the job file, then the signal to every worker
        # (here once the file's notice was seen, as on the cluster: a step or more later).
        job.notice = {"n2": time.time() + 30}
        job.write_job_file(["n1", "n2"])
        job.wait_for(lambda: "(notice)" in job.outputs(), what="a checkpoint on the notice")
        for node in ("n1", "n2"):
            job.live(node).send_signal(signal.SIGUSR1)
        step = job.progress_lines()[-1]["step"]
        job.wait_for(lambda: job.progress_lines()[-1]["step"] > step + 5, what="steps after the signal")
        job.notice = {}
        job.write_job_file(["n1"], leaving=["n2"])
        job.live("n2").send_signal(signal.SIGTERM)
        job.wait_for_world(1)
        assert job.finish() == {"n1": 0, "n2": 0}, job.outputs()
    finally:
        job.kill()
    assert job.progress_lines()[-1]["samples_done"] == epochs * DIGITS
    out = job.outputs()
    assert "grew on n1,n2" in out and "regrouped on n1" in out, out
    assert "n2 left the job" in out, out
    assert f"epoch {epochs - 1}: mean loss" in out, out
    # The evaluation, sharded over 1 or 2 workers and summed with all_reduce: every sample once.
    assert out.count("over 1797 samples") == epochs, out
    assert (tmp_path / "ckpt" / "gaptrain-state.pt").exists()
    assert out.count("(notice)") == 1, out  # the job file and the signal: one checkpoint
    assert "notice: n2 will be taken in" in out, out


def test_train_digits_under_torchrun_restarts_from_its_checkpoint(tmp_path: Path) -> None:
    """The same example as `gaptrain submit --torchrun` runs it: torchrun's agents (through
    gaptrain.torchrun) restart every worker on a resize, and the loop resumes from its checkpoint;
    the progress it reports never goes back."""
    pytest.importorskip("sklearn")
    epochs = 6
    job = FakeJob(tmp_path, ["-m", "gaptrain.torchrun",
                             str(EXAMPLES / "pytorch-elastic" / "train_digits.py"),
                             "--checkpoint", str(tmp_path / "ckpt"), "--epochs", str(epochs),
                             "--checkpoint-every-steps", "10", "--step-sleep", "0.05"],
                  min_nodes=1, max_nodes=2)
    try:
        job.write_job_file(["n1", "n2"])
        job.start("n1")
        job.start("n2")
        job.wait_for_world(2, timeout_s=120)
        job.write_job_file(["n1"], leaving=["n2"])
        job.live("n2").send_signal(signal.SIGTERM)  # as gaptrain-launch stops a node given back
        job.wait_for_world(1, timeout_s=120)
        statuses = job.finish(timeout_s=300)
        assert statuses["n1"] == 0, job.outputs()
    finally:
        job.kill()
    done = [line["samples_done"] for line in job.progress_lines()]
    assert done == sorted(done), "progress went back after a restart"
    assert done[-1] == epochs * DIGITS
    assert "started under torchrun: 2 worker(s)" in job.outputs()
    assert "started under torchrun: 1 worker(s)" in job.outputs()
