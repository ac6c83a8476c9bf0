#!/usr/bin/env bash
# The simulator's comparison table (docs/benchmarks.md): every policy on one scenario, with
# known and learned curves, its wall time and peak memory. Extra arguments go to every run.
#
#   tests/bench/simulate_table.sh build/controller/gaptrain                 # built-in KTH-SP2
#   tests/bench/simulate_table.sh build/controller/gaptrain --objective throughput
#   RUNS="bftrainer:known equal-share:known" ORACLE=1.76544e12 tests/bench/simulate_table.sh ...
# RUNS picks rows (policy:known|learn); ORACLE gives the oracle's samples when its row is not run.
set -euo pipefail

gaptrain="$1"
shift
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "| policy | curves | useful_samples | vs oracle | efficiency | utilization | jobs completed | rescales | wall s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|"
oracle="${ORACLE:-}"
for run in ${RUNS:-oracle:known gaptrain:known gaptrain:learn bftrainer:known bftrainer:learn equal-share:known}; do
  policy="${run%%:*}"
  curves="${run##*:}"
  learn=()
  [[ "$curves" == learn ]] && learn=(--learn)
  /usr/bin/time -f '%e %M' -o "$tmp/time" \
    "$gaptrain" simulate --policy "$policy" "${learn[@]}" --json "$tmp/summary.json" "$@"
  read -r wall rss_kb <"$tmp/time"
  row="$(python3 - "$tmp/summary.json" "$oracle" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
oracle = float(sys.argv[2]) if sys.argv[2] else s["useful_samples"]
print(f'{s["useful_samples"]:.6g} {s["useful_samples"] / oracle:.4f} {s["efficiency"]:.4f} '
      f'{s["utilization"]:.4f} {s["jobs_completed"]} {s["rescales"]} {s["useful_samples"]!r}')
PY
)"
  read -r useful ratio efficiency utilization completed rescales exact <<<"$row"
  [[ -z "$oracle" ]] && oracle="$exact"
  echo "| $policy | $curves | $useful | $ratio | $efficiency | $utilization | $completed | $rescales | $wall | $((rss_kb / 1024)) |"
done
