#!/usr/bin/env bash
# What the home mode is worth in the replay (docs/benchmarks.md, "The home mode in the
# simulator"): `gaptrain simulate` on each trace three times, with the same jobs, curves and
# holes: today's mode (the batch script on the job's first node, every reclaim gaptraind's),
# today's mode with the satellites in a QOS the regular QOS preempts (gaptraind.json
# satellite_qos), and the home mode (--home: batch scripts on the home node, every training node
# such a satellite). Two runs at a time. Prints a markdown table.
#
#   tests/bench/home_mode_table.sh build [TRACE...]
#       TRACE: kth summit-w0 summit-w1 summit-w2 summit-week synth1 synth2 (default: kth
#       summit-w0 summit-w1 summit-w2 summit-week)
set -euo pipefail
# shellcheck source=told_vs_not_told.sh
source "$(dirname "$0")/told_vs_not_told.sh"
told_setup "$@"
[[ $# -gt 1 ]] || traces=(kth summit-w0 summit-w1 summit-w2 summit-week)
printf '{"satellite_qos": "satellite"}\n' >"$out/satellite-qos.json"

for trace in "${traces[@]}"; do
  a="$(args_of "$trace")"
  echo "$gaptrain simulate $a --json $out/$trace.today.json >/dev/null"
  echo "$gaptrain simulate $a --config $out/satellite-qos.json --json $out/$trace.qos.json >/dev/null"
  echo "$gaptrain simulate $a --home --json $out/$trace.home.json >/dev/null"
done | xargs -P 2 -I{} bash -c "{}"

python3 - "$out" "${traces[@]}" <<'PY'
import json, sys
out, traces = sys.argv[1], sys.argv[2:]
modes = [("today", "today's mode"), ("qos", "today's + satellite QOS"), ("home", "home mode")]
print("| trace | mode | elastic share of hole node-s | requeues | pauses | nodes taken back "
      "(preempted) | regular jobs waited: count, p50 / p99 / max | useful samples | vs today | "
      "jobs completed | mean JCT |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for t in traces:
    today = json.load(open(f"{out}/{t}.today.json"))
    for key, label in modes:
        s = json.load(open(f"{out}/{t}.{key}.json"))
        waits = (f"{s['regular_waits']:,}: {s['regular_wait_s_p50']:g} / "
                 f"{s['regular_wait_s_p99']:g} / {s['regular_wait_s_max']:g} s"
                 if s["regular_waits"] else "0")
        jct = f"{s['mean_jct_s'] / 3600:.2f} h" if s["mean_jct_s"] is not None else "-"
        print(f"| {t} | {label} | {s['utilization']:.3f} | {s['requeues']:,} | {s['pauses']:,} | "
              f"{s['reclaims']:,} ({s['preemptions']:,}) | {waits} | {s['useful_samples']:.5g} | "
              f"{s['useful_samples'] / today['useful_samples']:.3f} | {s['jobs_completed']:,} | "
              f"{jct} |")
PY
