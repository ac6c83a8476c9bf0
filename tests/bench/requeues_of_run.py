#!/usr/bin/env python3
"""Why each elastic job was requeued in a scripts/bench-cluster run.

usage: requeues_of_run.py OUT_DIR

Reads the elastic pass of a run (OUT_DIR/elastic.json and OUT_DIR/elastic.gaptraind.log) and
prints, for each requeue gaptraind decided (its drain requested, or its start when it needed no
drain), the regular job it was for
(its size) and the nodes regular jobs submitted in the 2 s before asked for in all: more than
the nodes that host no elastic batch script can be met only by requeues or by waiting
(docs/benchmarks.md, "Zero impact: where it stands").
"""
from __future__ import annotations

import json
import re
import sys

BURST_S = 2.0
REQUEUE = re.compile(
    r'time=([\d.]+) .*msg="(?:drain requested|action started)" ACTION=requeue JOB_ID=(\d+) '
    r'NODES=(\S+) .*REASON="regular job (\d+) waits')


def main(out_dir: str) -> int:
    with open(f"{out_dir}/elastic.json") as f:
        run = json.load(f)
    jobs = {job["job_id"]: job for job in run["jobs"] if job.get("job_id")}
    t0 = run["t0"]
    count = 0
    decided: set[tuple[str, str]] = set()  # (elastic job, regular job) with a drain requested
    with open(f"{out_dir}/elastic.gaptraind.log") as log:
        for line in log:
            match = REQUEUE.search(line)
            if not match:
                continue
            if "action started" in line and (match[2], match[4]) in decided:
                continue  # the requeue of a drain already printed
            decided.add((match[2], match[4]))
            count += 1
            at = float(match[1])
            waiting = jobs.get(int(match[4]))
            burst = sum(job["nodes"] for job in jobs.values()
                        if at - BURST_S <= job["submitted_at"] <= at)
            what = (f"{waiting['name']} ({waiting['nodes']} nodes)" if waiting
                    else f"job {match[4]}")
            print(f"t={at - t0:6.1f} s: elastic job {match[2]} requeued (draining {match[3]}) for "
                  f"{what}; regular jobs submitted in the {BURST_S:.0f} s before asked for "
                  f"{burst} nodes")
    print(f"{count} requeues")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
