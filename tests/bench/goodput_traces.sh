#!/usr/bin/env bash
# Goodput on real traces (docs/benchmarks.md "Goodput"): `gaptrain simulate --models`
# with Pollux's cifar10, imagenet and bert (../shared/data/models/pollux) and the job mix
# tests/bench/jobs-goodput.csv (30 jobs, 1-64 nodes, their full trainings as work, resubmitted
# every 4 hours), on the three 2-day windows of the Summit late week (1,000 nodes) and a month
# of KTH-SP2 (built in, 100 nodes: its second month). Five runs a window: gaptrain with the batch
# adaptive, per-node and global, and BFTrainer's method (throughput, horizon 10 s, beside the
# scheduler) at per-node and at global batch. Prints one markdown table: progress (samples at
# the tuned batches, each worth its statistical efficiency), jobs completed, their mean
# completion time, and adaptive's ratios to BFTrainer's method at its better fixed batch (the
# one with more progress). Runs two at a time.
#
#   tests/bench/goodput_traces.sh build [WINDOW...]   WINDOW: summit-w0 summit-w1 summit-w2 kth
set -euo pipefail
build="$1"
shift
gaptrain="$build/controller/gaptrain"
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/../../../shared/data"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
windows=("$@")
[[ ${#windows[@]} -gt 0 ]] || windows=(summit-w0 summit-w1 summit-w2 kth)

mix=(--jobs "$here/jobs-goodput.csv" --models "$data/models/pollux" --repeat-jobs 14400)
summit=(--node-events "$data/traces/summit-2021-02-late-node-events.csv.gz" --nodes 1000)
window_args() {
  case "$1" in
    summit-w0) echo "${summit[*]} --start 0 --duration 172800" ;;
    summit-w1) echo "${summit[*]} --start 172800 --duration 172800" ;;
    summit-w2) echo "${summit[*]} --start 345600 --duration 172800" ;;
    kth) echo "--start 2592000 --duration 2592000" ;;
    *) echo "$(basename "$0"): unknown window $1" >&2; exit 2 ;;
  esac
}
method=(--policy bftrainer --objective throughput --placement trace --horizon 10)
declare -A runs=(
  [adaptive]="--batch adaptive"
  [per-node]="--batch per-node"
  [global]="--batch global"
  [bft-per-node]="--batch per-node ${method[*]}"
  [bft-global]="--batch global ${method[*]}"
)
order=(adaptive per-node global bft-per-node bft-global)

for w in "${windows[@]}"; do
  for r in "${order[@]}"; do
    echo "$gaptrain simulate $(window_args "$w") ${mix[*]} ${runs[$r]} --json $out/$w.$r.json"
  done
done | xargs -P 2 -I{} bash -c '{}'

python3 - "$out" "${windows[@]}" <<'PY'
import json, sys
out, windows = sys.argv[1], sys.argv[2:]
names = {"adaptive": "gaptrain adaptive", "per-node": "gaptrain per-node", "global": "gaptrain global",
         "bft-per-node": "BFTrainer's method, per-node", "bft-global": "BFTrainer's method, global"}
print("| window | run | progress (samples at M0) | jobs completed | mean completion | useful samples | utilization |")
print("|---|---|---:|---:|---:|---:|---:|")
summary = []
for w in windows:
    runs = {r: json.load(open(f"{out}/{w}.{r}.json")) for r in names}
    for r, s in runs.items():
        jct = f'{s["mean_jct_s"] / 3600:.1f} h' if s["mean_jct_s"] else "-"
        print(f'| {w} | {names[r]} | {s["progress"]:.4g} | {s["jobs_completed"]} | {jct} | '
              f'{s["useful_samples"]:.4g} | {s["utilization"]:.3f} |')
    best = max(("bft-per-node", "bft-global"), key=lambda r: runs[r]["progress"])
    fixed = max(runs["per-node"]["progress"], runs["global"]["progress"])
    a, b = runs["adaptive"], runs[best]
    summary.append((w, names[best], a["progress"] / b["progress"],
                    a["jobs_completed"] / b["jobs_completed"] if b["jobs_completed"] else float("inf"),
                    a["progress"] / fixed))
print()
print("| window | BFTrainer's method at its better batch | adaptive / it: progress | adaptive / it: jobs completed | adaptive / gaptrain's better fixed batch: progress |")
print("|---|---|---:|---:|---:|")
for w, best, p, j, f in summary:
    print(f"| {w} | {best} | {p:.2f} | {j:.2f} | {f:.2f} |")
PY
