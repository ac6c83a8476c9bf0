#!/usr/bin/env bash
# What would knowing every hole's end be worth on node logs? (docs/benchmarks.md, "What hole
# ends are worth on node logs".) Builds `gaptrain` with what_if_known_ends.patch in a temporary
# worktree and replays the shipped policy three ways on each input of compare_traces.sh:
#   shipped    the build under test, no end known (a node log has no plan);
#   known      the plan knows each hole's actual end from its first second;
#   on-time    the same, and nodes a planned job waits for go back when its start is due.
# The patch is a measurement, never shipped: on Slurm a lease of ours can be what delays a
# planned job, and only giving its nodes back at once (what "known" does) is safe then.
#
#   tests/bench/what_if_known_ends.sh build [TRACE...]   # TRACE as compare_traces.sh; default
#                                                        # summit-w0 summit-w1 summit-w2
#                                                        # summit-week synth1 synth2 kth
set -euo pipefail
build="$(cd "$1" && pwd)"
shift
repo="$(cd "$(dirname "$0")/../.." && pwd)"
data="$repo/../shared/data"
shipped="$build/controller/gaptrain"
make_node_events="$build/tests/bench/make_node_events"
work="$(mktemp -d)"
cleanup() {
  git -C "$repo" worktree remove --force "$work/tree" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

git -C "$repo" worktree add --quiet --detach "$work/tree" HEAD
git -C "$work/tree" apply "$repo/tests/bench/what_if_known_ends.patch"
cmake -S "$work/tree" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGAPTRAIN_SHARED_DATA_DIR="$data" >/dev/null
cmake --build "$work/build" --target gaptrain >/dev/null
what_if="$work/build/controller/gaptrain"

traces=("$@")
[[ ${#traces[@]} -gt 0 ]] || traces=(summit-w0 summit-w1 summit-w2 summit-week synth1 synth2 kth)
mix=(--jobs "$data/models/jobs-example.csv" --curves "$data/models/curves.csv" --repeat-jobs 3600)
summit=(--node-events "$data/traces/summit-2021-02-late-node-events.csv.gz" --nodes 1000 "${mix[@]}")
"$make_node_events" --nodes 1000 --days 7 --seed 1 -o "$work/synth1.csv" 2>/dev/null
"$make_node_events" --nodes 1000 --days 7 --seed 2 --load 0.8 -o "$work/synth2.csv" 2>/dev/null

args_of() {
  case "$1" in
    kth) echo "" ;;
    summit-w0) echo "${summit[*]} --start 0 --duration 172800" ;;
    summit-w1) echo "${summit[*]} --start 172800 --duration 172800" ;;
    summit-w2) echo "${summit[*]} --start 345600 --duration 172800" ;;
    summit-week) echo "${summit[*]}" ;;
    synth1 | synth2) echo "--node-events $work/$1.csv ${mix[*]}" ;;
    *) echo "what_if_known_ends.sh: unknown trace $1" >&2; exit 2 ;;
  esac
}

for trace in "${traces[@]}"; do
  a="$(args_of "$trace")"
  echo "$shipped simulate $a --json $work/$trace.shipped.json"
  echo "GAPTRAIN_WHAT_IF_KNOWN_ENDS=1 $what_if simulate $a --json $work/$trace.known.json"
  echo "GAPTRAIN_WHAT_IF_KNOWN_ENDS=1 GAPTRAIN_WHAT_IF_ON_TIME=1 $what_if simulate $a" \
    "--json $work/$trace.on-time.json"
done | xargs -P 2 -I{} bash -c "{} >/dev/null"

python3 - "$work" "${traces[@]}" <<'PY'
import json, sys
work, traces = sys.argv[1], sys.argv[2:]
print("| trace | ends | useful samples | vs shipped | efficiency | utilization | rescales |")
print("|---|---|---:|---:|---:|---:|---:|")
for trace in traces:
    base = json.load(open(f"{work}/{trace}.shipped.json"))["useful_samples"]
    for ends in ("shipped", "known", "on-time"):
        s = json.load(open(f"{work}/{trace}.{ends}.json"))
        print(f"| {trace} | {ends} | {s['useful_samples']:.5g} | {s['useful_samples'] / base:.3f} | "
              f"{s['efficiency']:.3f} | {s['utilization']:.3f} | {s['rescales']} |")
PY
