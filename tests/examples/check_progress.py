#!/usr/bin/env python3
"""Checks the progress log of examples/pytorch-elastic/train_digits.py after a resized run.

usage: check_progress.py PROGRESS.jsonl EPOCHS DATASET_SIZE [WORLD_SIZES...]

Checks, printing a summary and every failure (exit 1 on any):
  * step goes 1, 2, 3, ... and samples_done strictly increases over the whole log, across
    restarts: a restart continued from the checkpoint instead of starting over, logging a
    step twice or losing one; samples_done is always epoch * DATASET_SIZE + epoch_pos;
  * every epoch 0..EPOCHS-1 ends exactly once (its line with epoch_pos == DATASET_SIZE),
    epochs never go back, and within an epoch epoch_pos strictly increases: no epoch is
    duplicated or lost;
  * the world sizes, with repeats collapsed, contain WORLD_SIZES in that order (e.g. 2 1 2:
    the run shrank and grew back);
  * the mean loss of the last epoch is below that of the first.
Needs only the standard library.
"""
import json
import sys
from statistics import mean


def subsequence(needle, haystack):
    it = iter(haystack)
    return all(any(x == y for y in it) for x in needle)


def main():
    path, epochs, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    want_worlds = [int(w) for w in sys.argv[4:]]
    lines = []
    with open(path) as f:
        for raw in f:
            lines.append(json.loads(raw))  # the trainer writes whole lines: any bad one is a bug

    errors = []
    if not lines:
        print("progress log is empty")
        return 1
    for key in ("step", "epoch", "loss", "world_size", "samples_done", "time"):
        if any(key not in r for r in lines):
            errors.append(f"a line lacks '{key}'")

    if lines[0]["step"] != 1:
        errors.append(f"the log starts at step {lines[0]['step']}")
    for r in lines:
        if r["samples_done"] != r["epoch"] * n + r["epoch_pos"]:
            errors.append(f"step {r['step']}: samples_done {r['samples_done']} is not "
                          f"epoch {r['epoch']} * {n} + epoch_pos {r['epoch_pos']}")
    for a, b in zip(lines, lines[1:]):
        if b["step"] != a["step"] + 1:
            errors.append(f"step went from {a['step']} to {b['step']}")
        if b["samples_done"] <= a["samples_done"]:
            errors.append(f"samples_done went from {a['samples_done']} to {b['samples_done']}")
        if b["epoch"] < a["epoch"]:
            errors.append(f"epoch went back from {a['epoch']} to {b['epoch']} at step {b['step']}")
        if b["epoch"] == a["epoch"] and b["epoch_pos"] <= a["epoch_pos"]:
            errors.append(f"epoch {b['epoch']}: position went from {a['epoch_pos']} to {b['epoch_pos']}")

    ends = [r["epoch"] for r in lines if r["epoch_pos"] == n]
    if ends != list(range(epochs)):
        errors.append(f"epoch ends {ends}, want each of 0..{epochs - 1} once")
    if lines[-1]["samples_done"] != epochs * n:
        errors.append(f"samples_done ends at {lines[-1]['samples_done']}, want {epochs} * {n}")

    runs = []  # world sizes with repeats collapsed, and the steps where each run began
    for r in lines:
        if not runs or runs[-1][0] != r["world_size"]:
            runs.append((r["world_size"], r["step"]))
    if not subsequence(want_worlds, [w for w, _ in runs]):
        errors.append(f"world sizes {[w for w, _ in runs]} do not contain {want_worlds} in order")

    print(f"{len(lines)} lines, steps {lines[0]['step']}..{lines[-1]['step']}, "
          f"samples_done {lines[-1]['samples_done']}, "
          f"{lines[-1]['time'] - lines[0]['time']:.1f} s of training")
    print("world size runs (size from step): " + ", ".join(f"{w} from {s}" for w, s in runs))
    print("attempts: " + " ".join(str(a) for a in sorted({r.get("attempt") for r in lines})))
    by_epoch = {}
    for r in lines:
        by_epoch.setdefault(r["epoch"], []).append(r)
    for e, rs in sorted(by_epoch.items()):
        print(f"epoch {e}: steps {rs[0]['step']}..{rs[-1]['step']} ({len(rs)} lines), "
              f"world sizes {sorted({r['world_size'] for r in rs})}, mean loss {mean(r['loss'] for r in rs):.4f}")
    first, last = min(by_epoch), max(by_epoch)
    first_loss = mean(r["loss"] for r in by_epoch[first])
    last_loss = mean(r["loss"] for r in by_epoch[last])
    if not last_loss < first_loss:
        errors.append(f"loss did not go down: epoch {first} mean {first_loss:.4f}, epoch {last} mean {last_loss:.4f}")

    for e in errors:
        print("FAIL: " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
