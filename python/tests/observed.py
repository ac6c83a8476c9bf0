#!/usr/bin/env python3
"""What observe_run.py logged of a training, checked (python.ported and the cluster cases):

    observed.py PREFIX SAMPLES WHOLE_EPOCHS [MIN_WORLDS...]

every sample at most once in every epoch and exactly once in the first WHOLE_EPOCHS, the carried
state the same on every rank after every step, and the world sizes MIN_WORLDS seen in that order
(e.g. 4 2 4: a reclaim and a grow back). Exits 1 saying what is wrong.

    observed.py --completed-at PREFIX WORLD [AFTER_WORLD]

while the training runs: exits 0 when a worker logged a step it completed at world size WORLD,
numbered above every step completed at AFTER_WORLD if given, else 1 (the cluster cases' polls)."""
from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def logged(prefix: str, while_written: bool = False) -> list[dict]:
    """Every line of the logs PREFIX.*; ``while_written``: a line still being written is left out."""
    path = Path(prefix)
    lines: list[dict] = []
    for log in path.parent.glob(path.name + ".*"):
        for entry in log.read_text().splitlines():
            if not entry.strip():
                continue
            try:
                lines.append(json.loads(entry))
            except ValueError:
                if not while_written:
                    raise
    return lines


def observed(prefix: str) -> list[dict]:
    return counted(logged(prefix))


def completed_at(lines: list[dict], world: int, after_world: int | None = None) -> bool:
    """Whether a step was completed at ``world``, numbered above every one at ``after_world``."""
    steps = [(line["world"], line["step"]) for line in lines if not line.get("left_during")]
    after = max((step for w, step in steps if w == after_world), default=0)
    return any(w == world and step > after for w, step in steps)


def counted(lines: list[dict]) -> list[dict]:
    """The steps that count: every completed one, and what a worker that left in the middle of
    a step (its gradients in) trained in it, if the others completed that step in that plan."""
    completed = {(line.get("plan"), line["step"]) for line in lines if not line.get("left_during")}
    return [line for line in lines if not line.get("left_during") or (line.get("plan"), line["step"]) in completed]


def check_samples(lines: list[dict], samples: int, whole_epochs: int) -> None:
    by_epoch: dict[int, Counter] = defaultdict(Counter)
    for line in lines:
        by_epoch[line["epoch"]].update(line["indices"])
    for epoch, seen in sorted(by_epoch.items()):
        repeated = {i: c for i, c in seen.items() if c > 1}
        assert not repeated, f"epoch {epoch}: samples trained twice: {repeated}"
        if epoch < whole_epochs:
            missing = sorted(set(range(samples)) - set(seen))
            assert not missing, f"epoch {epoch}: samples never trained: {missing[:20]}"
    assert len(by_epoch) >= whole_epochs, f"only {len(by_epoch)} epochs logged"


def check_state(lines: list[dict]) -> None:
    by_step: dict[int, list[dict]] = defaultdict(list)
    for line in lines:
        by_step[line["step"]].append(line)
    for step, ranks in sorted(by_step.items()):
        assert len(ranks) == ranks[0]["world"], f"step {step}: {len(ranks)} logs for {ranks[0]['world']} workers"
        states = [r["state"] for r in ranks if "state" in r]  # a worker that left during it has none
        assert all(s == states[0] for s in states), f"ranks disagree after step {step}: {states}"


def check_worlds(lines: list[dict], sequence: list[int]) -> None:
    worlds = [line["world"] for line in sorted(lines, key=lambda entry: entry["step"])]
    at = 0
    for world in worlds:
        if at < len(sequence) and world == sequence[at]:
            at += 1
    assert at == len(sequence), f"world sizes {sequence} not seen in order (steps at {sorted(set(worlds))})"


def main() -> int:
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--completed-at":
        after = int(sys.argv[4]) if len(sys.argv) == 5 else None
        return 0 if completed_at(logged(sys.argv[2], while_written=True), int(sys.argv[3]), after) else 1
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    lines = observed(sys.argv[1])
    try:
        check_samples(lines, int(sys.argv[2]), int(sys.argv[3]))
        check_state(lines)
        check_worlds(lines, [int(w) for w in sys.argv[4:]])
    except AssertionError as e:
        print(f"observed.py: {e}", file=sys.stderr)
        return 1
    print(f"{len(lines)} worker-steps over {len({entry['step'] for entry in lines})} steps: "
          f"every sample once an epoch, the same state on every rank")
    return 0


if __name__ == "__main__":
    sys.exit(main())
