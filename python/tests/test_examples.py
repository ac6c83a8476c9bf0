"""The examples as a user runs them, on this machine without Slurm (fake_launch.py stands in
for gaptrain-launch): train_digits.py on the helper through a grow and a shrink."""
from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from fake_launch import FakeJob

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIGITS = 1797


def test_train_digits_follows_a_grow_and_a_shrink(tmp_path: Path) -> None:
    pytest.importorskip("sklearn")
    epochs = 3
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
    assert (tmp_path / "ckpt" / "gaptrain-state.pt").exists()
