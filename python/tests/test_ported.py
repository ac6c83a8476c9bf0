"""The third-party scripts ported to ElasticJob (examples/ported), on this machine (fake_launch.py
plays gaptrain-launch) through a grow and a shrink: every sample once per epoch, the carried
state the same on every rank at every step, and the result within the noise of a run on one
worker. observe_run.py logs what each worker trained."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from fake_launch import HERE, FakeJob

PORTED = Path(__file__).resolve().parents[2] / "examples" / "ported"


def observed(job: FakeJob) -> list[dict]:
    import json

    lines = []
    for path in job.tmp.glob("observed.*"):
        lines += [json.loads(l) for l in path.read_text().splitlines() if l.strip()]
    return lines


def assert_each_sample_at_most_once_per_epoch(lines: list[dict], samples: int, whole_epochs: int) -> None:
    by_epoch: dict[int, Counter] = defaultdict(Counter)
    for line in lines:
        by_epoch[line["epoch"]].update(line["indices"])
    for epoch, seen in by_epoch.items():
        repeated = {i: c for i, c in seen.items() if c > 1}
        assert not repeated, f"epoch {epoch}: samples trained twice: {repeated}"
        if epoch < whole_epochs:
            assert sorted(seen) == list(range(samples)), f"epoch {epoch}: samples missing"


def assert_same_state_on_every_rank(lines: list[dict]) -> None:
    by_step: dict[int, list[dict]] = defaultdict(list)
    for line in lines:
        by_step[line["step"]].append(line["state"])
    differing = [step for step, states in by_step.items() if any(s != states[0] for s in states)]
    assert not differing, f"ranks disagree after steps {differing[:5]}: {by_step[differing[0]]}"
    assert max(len(states) for states in by_step.values()) >= 3  # a step at world size 3 was seen


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
            job.wait_for(lambda: len({l["step"] for l in observed(job) if l["world"] == 3}) >= 2,
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
    lines = observed(elastic)
    assert_each_sample_at_most_once_per_epoch(lines, 3200, max(l["epoch"] for l in lines))
    assert_same_state_on_every_rank(lines)
    assert "n2 left the job" in elastic.outputs(), elastic.outputs()
    assert learned(elastic.outputs()) == pytest.approx(learned(alone.outputs()), abs=0.05)


def sine_data(tmp: Path) -> None:
    """pytorch/examples' generator, its waves cut to 19 of 60 points: L-BFGS on 100 waves of
    1000 takes minutes a step on a CPU."""
    tmp.mkdir()
    subprocess.run([sys.executable, str(PORTED / "time_sequence_prediction" / "generate_sine_wave.py")],
                   cwd=tmp, check=True)
    subprocess.run([sys.executable, "-c", "import torch; torch.save(torch.load('traindata.pt')[:19, :60], "
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
    lines = observed(elastic)
    assert_each_sample_at_most_once_per_epoch(lines, 16, 8)
    assert_same_state_on_every_rank(lines)
    test_loss = [float(v) for v in re.findall(r"test loss: (\S+)", elastic.outputs())]
    reference = [float(v) for v in re.findall(r"test loss: (\S+)", alone.outputs())]
    # Within the noise: a step a leaving worker abandoned is redone from where L-BFGS was.
    assert test_loss[-1] == pytest.approx(reference[-1], rel=0.5)
