#!/usr/bin/env bash
# The simulator's comparison table (docs/benchmarks.md): every policy on one scenario, with
# known and learned curves, its wall time and peak memory, and each run's useful samples as a
# fraction of the bftrainer policy's with known curves and of the oracle bound (each run computes
# the bound with --oracle; `gaptrain simulate --compare` prints one table of every policy under a
# single bound). Extra arguments go to every run.
#
#   tests/bench/simulate_table.sh build/controller/gaptrain                 # built-in KTH-SP2
#   tests/bench/simulate_table.sh build/controller/gaptrain --node-events LOG --nodes 1000 ...
#   RUNS="bftrainer:known gaptrain:known" tests/bench/simulate_table.sh ...
# RUNS picks rows (policy:known|learn).
set -euo pipefail

gaptrain="$1"
shift
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

runs="${RUNS:-bftrainer:known gaptrain:known gaptrain:learn bftrainer:learn equal-share:known}"
for run in $runs; do
  policy="${run%%:*}"
  curves="${run##*:}"
  learn=()
  [[ "$curves" == learn ]] && learn=(--learn)
  /usr/bin/time -f '%e %M' -o "$tmp/$run.time" \
    "$gaptrain" simulate --policy "$policy" "${learn[@]}" --oracle --json "$tmp/$run.json" "$@"
done
# shellcheck disable=SC2086 # RUNS is a list of words: one argument each
python3 - "$tmp" $runs <<'PY'
import json, sys
tmp, runs = sys.argv[1], sys.argv[2:]
base = None
if "bftrainer:known" in runs:
    base = json.load(open(f"{tmp}/bftrainer:known.json"))["useful_samples"]
print("| policy | curves | useful_samples | vs bftrainer | efficiency | utilization | "
      "of oracle | jobs completed | rescales | regular wait p99 s | wall s | peak RSS MB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for run in runs:
    policy, curves = run.split(":")
    s = json.load(open(f"{tmp}/{run}.json"))
    wall, rss_kb = open(f"{tmp}/{run}.time").read().split()
    ratio = f'{s["useful_samples"] / base:.4f}' if base else "–"
    wait = s.get("regular_wait_s_p99")
    wait = "–" if wait is None else f"{wait:g}"
    print(f'| {policy} | {curves} | {s["useful_samples"]:.6g} | {ratio} | {s["efficiency"]:.4f} | '
          f'{s["utilization"]:.4f} | {s["fraction_of_oracle"]:.4f} | {s["jobs_completed"]} | {s["rescales"]} | {wait} | {wall} | '
          f'{int(rss_kb) // 1024} |')
PY
