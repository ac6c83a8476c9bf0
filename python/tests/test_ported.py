"""The third-party scripts ported to ElasticJob (examples/ported), on this machine (fake_launch.py
plays gaptrain-launch) through a grow and a shrink: every sample once per epoch, the carried
state the same on every rank at every step, and the result within the noise of a run on one
worker. observe_run.py logs what each worker trained."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fake_launch import HERE, FakeJob
from observed import check_samples, check_state, check_worlds, observed

PORTED = Path(__file__).resolve().parents[2] / "examples" / "ported"


def observed_lines(job: FakeJob) -> list[dict]:
    return observed(str(job.tmp / "observed"))


def run(tmp: Path, argv: list[str], nodes: list[str], resize: bool, step_sleep: float) -> FakeJob:
    tmp.mkdir(exist_ok=True)
    os.environ.update(CHECKPOINT_DIR=str(tmp / "ckpt"), OBSERVE_LOG=str(tmp / "observed"),
                      OBSERVE_STEP_SLEEP=str(step_sleep))
    job = FakeJob(tmp, [str(HERE / "observe_run.py"), *argv])
    try:
        job.write_job_file(nodes)
        for node in nodes:
            job.start(node)
        if resize:
            job.wait_for_world(2, timeout_s=120)
            job.write_job_file(["n1", "n2", "n3"])
            job.start("n3")
            job.wait_for_world(3, timeout_s=120)
            job.wait_for(lambda: len({entry["step"] for entry in observed_lines(job) if entry["world"] == 3}) >= 2,
                         what="two steps at world size 3")
            job.write_job_file(["n1", "n3"], leaving=["n2"])  # the job file alone, as gaptrain-launch
            job.wait_for(lambda: job.live("n2") is None, what="n2's worker to leave")
        statuses = job.finish(timeout_s=600)
        assert set(statuses.values()) == {0}, job.outputs()
    finally:
        job.kill()
        for name in ("CHECKPOINT_DIR", "OBSERVE_LOG", "OBSERVE_STEP_SLEEP"):
            os.environ.pop(name)
    assert "Traceback" not in job.outputs(), job.outputs()
    return job


def learned(out: str) -> list[float]:
    line = re.findall(r"==> Learned function:\s*(.*)", out)[-1]
    return [float(v) for v in re.findall(r"[+-]\d+\.\d+", line)]


def test_regression_through_a_grow_and_a_shrink(tmp_path: Path) -> None:
    script = [str(PORTED / "regression" / "main_elastic.py")]
    alone = run(tmp_path / "alone", script, ["n1"], resize=False, step_sleep=0)
    elastic = run(tmp_path / "elastic", script, ["n1", "n2"], resize=True, step_sleep=0.05)
    lines = observed_lines(elastic)
    check_samples(lines, 3200, max(entry["epoch"] for entry in lines))
    check_state(lines)
    check_worlds(lines, [2, 3, 2])
    assert "n2 left the job" in elastic.outputs(), elastic.outputs()
    assert learned(elastic.outputs()) == pytest.approx(learned(alone.outputs()), abs=0.05)


def sine_data(tmp: Path) -> None:
    """pytorch/examples' generator, its waves cut to 11 of 40 points: L-BFGS on 100 waves of
    1000 takes minutes a step on a CPU."""
    tmp.mkdir()
    subprocess.run([sys.executable, str(PORTED / "time_sequence_prediction" / "generate_sine_wave.py")],
                   cwd=tmp, check=True)
    subprocess.run([sys.executable, "-c", "import torch; torch.save(torch.load('traindata.pt')[:11, :40], "
                    "open('traindata.pt', 'wb'))"], cwd=tmp, check=True)


def test_time_sequence_prediction_through_a_grow_and_a_shrink(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    script = [str(PORTED / "time_sequence_prediction" / "train_elastic.py"), "--steps", "8"]
    sine_data(tmp_path / "alone")
    monkeypatch.chdir(tmp_path / "alone")
    alone = run(tmp_path / "alone", script, ["n1"], resize=False, step_sleep=0)
    sine_data(tmp_path / "elastic")
    monkeypatch.chdir(tmp_path / "elastic")
    elastic = run(tmp_path / "elastic", script, ["n1", "n2"], resize=True, step_sleep=0)
    lines = observed_lines(elastic)
    check_samples(lines, 8, 8)
    check_state(lines)
    check_worlds(lines, [2, 3, 2])
    test_loss = [float(v) for v in re.findall(r"test loss: (\S+)", elastic.outputs())]
    reference = [float(v) for v in re.findall(r"test loss: (\S+)", alone.outputs())]
    # Within the noise: a step a leaving worker abandoned is redone from where L-BFGS was.
    assert test_loss[-1] == pytest.approx(reference[-1], rel=0.5)
