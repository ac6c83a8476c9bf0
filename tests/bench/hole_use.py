#!/usr/bin/env python3
"""Which holes an elastic job used, from gaptraind's log (stderr form, KEY=value).

Pairs each node's `hole opened` with the next `hole reclaimed` (a job took the node: a regular
job, or a satellite the allocator grew there) and says whether a grow or admission named the
node in between. Prints node-seconds and counts by hole length, used or left idle, and whether
backfill's plan gave the hole an end: where the holes a replay leaves idle are.

    tests/bench/hole_use.py BENCH_DIR/cluster-elastic/log/gaptraind.log
"""
import collections
import re
import sys

LINE = re.compile(r'time=([\d.]+).*?msg="([^"]*)"(.*)')
FIELD = re.compile(r'(\w+)=("[^"]*"|\S+)')
BUCKETS = ((2, "<2 s"), (5, "2-5 s"), (20, "5-20 s"), (60, "20-60 s"), (float("inf"), ">=60 s"))


def bucket(seconds: float) -> str:
    return next(label for bound, label in BUCKETS if seconds < bound)


def main(path: str) -> None:
    opened: dict[str, tuple[float, str]] = {}
    grown: dict[str, list[float]] = collections.defaultdict(list)
    seconds: collections.Counter[tuple[str, str, str]] = collections.Counter()
    count: collections.Counter[tuple[str, str, str]] = collections.Counter()
    with open(path) as log:
        for line in log:
            match = LINE.search(line)
            if not match:
                continue
            at, message = float(match.group(1)), match.group(2)
            fields = {k: v.strip('"') for k, v in FIELD.findall(match.group(3))}
            if message == "hole opened":
                opened[fields["NODE"]] = (at, fields.get("HOLE_END", "unknown"))
            elif message == "action done" and fields.get("ACTION") in ("grow", "admit"):
                for node in fields.get("NODES", "").split(","):
                    grown[node].append(at)
            elif message == "hole reclaimed" and fields.get("NODE") in opened:
                node = fields["NODE"]
                since, end = opened.pop(node)
                used = "used" if any(since <= t <= at for t in grown[node]) else "idle"
                known = "end unknown" if end == "unknown" else "end planned"
                key = (bucket(at - since), used, known)
                seconds[key] += at - since
                count[key] += 1
    print("| hole length | used | backfill's plan | holes | node-s |")
    print("|---|---|---|---:|---:|")
    order = [label for _, label in BUCKETS]
    for key in sorted(count, key=lambda k: (order.index(k[0]), k[1], k[2])):
        print(f"| {key[0]} | {key[1]} | {key[2]} | {count[key]} | {seconds[key]:.1f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
