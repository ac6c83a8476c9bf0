#!/usr/bin/env bash
# Goodput on real traces (docs/benchmarks.md "Goodput"): `gaptrain simulate --models` with
# Pollux's cifar10, imagenet and bert (../shared/data/models/pollux) on the three 2-day windows
# of the Summit late week and the whole week (1,000 nodes) and a month of KTH-SP2 (built in, 100
# nodes: its second month). Two job mixes:
#   ours      tests/bench/jobs-goodput.csv: 30 jobs, 1-64 nodes, their full trainings as work
#             (5.0 M, 115 M and 177 k samples at M0), resubmitted every 4 hours: more work than
#             any window holds, so the measure is progress;
#   complete  tests/bench/jobs-goodput-complete.csv: the same 30 jobs submitted a minute apart,
#             once, imagenet's work a tenth (11.5 M samples): every job can complete, so the
#             measure is the mean job completion time (submission to completion).
# Seven runs a window: gaptrain with the batch adaptive (the shipped objective, speedup), adaptive
# with the fair objective at Pollux's p = -1, per-node and global; BFTrainer's method
# (throughput, horizon 10 s, beside the scheduler) at per-node and at global batch; and the
# shipped objective at a fixed batch (per-node) with BFTrainer's own objective (throughput), to
# tell the objective's share from the rest. Prints one markdown table of every run and one of the
# ratios the goals are set on. Runs two at a time.
#
#   tests/bench/goodput_traces.sh build [ours|complete] [WINDOW...]
#   WINDOW: summit-w0 summit-w1 summit-w2 summit-week kth (default: all)
set -euo pipefail
build="$1"
shift
mix_name=ours
if [[ $# -gt 0 && ($1 == ours || $1 == complete) ]]; then
  mix_name=$1
  shift
fi
gaptrain="$build/controller/gaptrain"
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/../../../shared/data"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
windows=("$@")
[[ ${#windows[@]} -gt 0 ]] || windows=(summit-w0 summit-w1 summit-w2 summit-week kth)

case "$mix_name" in
  ours) mix=(--jobs "$here/jobs-goodput.csv" --models "$data/models/pollux" --repeat-jobs 14400) ;;
  complete) mix=(--jobs "$here/jobs-goodput-complete.csv" --models "$data/models/pollux") ;;
esac
summit=(--node-events "$data/traces/summit-2021-02-late-node-events.csv.gz" --nodes 1000)
window_args() {
  case "$1" in
    summit-w0) echo "${summit[*]} --start 0 --duration 172800" ;;
    summit-w1) echo "${summit[*]} --start 172800 --duration 172800" ;;
    summit-w2) echo "${summit[*]} --start 345600 --duration 172800" ;;
    summit-week) echo "${summit[*]}" ;;
    kth) echo "--start 2592000 --duration 2592000" ;;
    *) echo "$(basename "$0"): unknown window $1" >&2; exit 2 ;;
  esac
}
method=(--policy bftrainer --objective throughput --placement trace --horizon 10)
declare -A runs=(
  [adaptive]="--batch adaptive"
  [adaptive-fair]="--batch adaptive --objective fair --fair-p -1"
  [per-node]="--batch per-node"
  [global]="--batch global"
  [per-node-throughput]="--batch per-node --objective throughput"
  [bft-per-node]="--batch per-node ${method[*]}"
  [bft-global]="--batch global ${method[*]}"
)
order=(adaptive adaptive-fair per-node global per-node-throughput bft-per-node bft-global)

for w in "${windows[@]}"; do
  for r in "${order[@]}"; do
    echo "$gaptrain simulate $(window_args "$w") ${mix[*]} ${runs[$r]} --json $out/$w.$r.json"
  done
done | xargs -P 2 -I{} bash -c '{}'

python3 - "$out" "$mix_name" "${windows[@]}" <<'PY'
import json, sys
out, mix, windows = sys.argv[1], sys.argv[2], sys.argv[3:]
names = {"adaptive": "gaptrain adaptive", "adaptive-fair": "gaptrain adaptive, fair p = -1",
         "per-node": "gaptrain per-node", "global": "gaptrain global",
         "per-node-throughput": "gaptrain per-node, throughput objective",
         "bft-per-node": "BFTrainer's method, per-node", "bft-global": "BFTrainer's method, global"}
hours = lambda s: f"{s / 3600:.2f} h" if s else "-"
print("| window | run | progress (samples at M0) | jobs completed | mean completion | p90 completion | makespan | useful samples |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
summary = []
for w in windows:
    runs = {r: json.load(open(f"{out}/{w}.{r}.json")) for r in names}
    for r, s in runs.items():
        print(f'| {w} | {names[r]} | {s["progress"]:.4g} | {s["jobs_completed"]} of {s["jobs_submitted"]} | '
              f'{hours(s["mean_jct_s"])} | {hours(s["p90_jct_s"])} | {hours(s["makespan_s"])} | {s["useful_samples"]:.4g} |')
    bft = ("bft-per-node", "bft-global")
    fixed = [runs["per-node"]["progress"] / runs["bft-per-node"]["progress"],
             runs["global"]["progress"] / runs["bft-global"]["progress"]]
    if mix == "ours":
        best = max(bft, key=lambda r: runs[r]["progress"])
        summary.append((w, names[best], f'{runs["adaptive"]["progress"] / runs[best]["progress"]:.2f}',
                        f'{runs["adaptive-fair"]["progress"] / runs[best]["progress"]:.2f}', *[f"{f:.3f}" for f in fixed]))
    else:
        # The better batch by mean completion among the runs that complete every job; where
        # none does, by jobs completed: its mean is then over fewer jobs, and no ratio is given.
        done = lambda r: runs[r]["jobs_completed"] == runs[r]["jobs_submitted"]
        complete = [r for r in bft if done(r)]
        best = min(complete, key=lambda r: runs[r]["mean_jct_s"]) if complete else \
            max(bft, key=lambda r: runs[r]["jobs_completed"])
        ratio = lambda r: (f'{runs[best]["mean_jct_s"] / runs[r]["mean_jct_s"]:.2f}' if complete and done(r)
                           else f'({runs[r]["jobs_completed"]} vs {runs[best]["jobs_completed"]} completed)')
        summary.append((w, names[best], ratio("adaptive"), ratio("adaptive-fair"), *[f"{f:.3f}" for f in fixed]))
print()
measure = "progress" if mix == "ours" else "mean completion time, BFTrainer's / ours"
print(f"| window | BFTrainer's method at its better batch | adaptive: {measure} | adaptive, fair p = -1: {measure} | "
      "gaptrain / BFTrainer's method at per-node: progress | at global: progress |")
print("|---|---|---:|---:|---:|---:|")
for row in summary:
    print("| " + " | ".join(row) + " |")
PY
