# shellcheck shell=bash
# The inputs of docs/benchmarks.md's policy tables, shared by compare_traces.sh and
# what_if_known_ends.sh (sourced, not run). trace_inputs DIR MAKE_NODE_EVENTS writes the two
# synthetic node-event logs into DIR; args_of TRACE then prints `gaptrain simulate`'s input
# arguments for TRACE: kth (the built-in KTH-SP2 year), summit-w0, summit-w1, summit-w2 (three
# disjoint 2-day windows of the Summit late week, 1,000 nodes), summit-week, synth1, synth2
# (make_node_events, 1,000 nodes, 7 days; seed 2 at load 0.8). Node-event inputs get the example
# job mix resubmitted hourly. scaled_mix DIR UP DOWN writes the example mix with every grow cost
# times UP and shrink cost times DOWN; `args_of TRACE scaled` then runs TRACE on it (the KTH year
# with it resubmitted every 4 hours, as the built-in scenario does).
# shellcheck disable=SC2034 # read by the scripts that source this file
all_traces=(kth summit-w0 summit-w1 summit-w2 summit-week synth1 synth2)

trace_inputs() {  # trace_inputs DIR MAKE_NODE_EVENTS
  data="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/data"
  trace_dir=$1
  scaled=(--jobs "$trace_dir/jobs-scaled.csv" --curves "$data/models/curves.csv")
  mix=(--jobs "$data/models/jobs-example.csv" --curves "$data/models/curves.csv" --repeat-jobs 3600)
  summit=(--node-events "$data/traces/summit-2021-02-late-node-events.csv.gz" --nodes 1000)
  "$2" --nodes 1000 --days 7 --seed 1 -o "$trace_dir/synth1.csv" 2>/dev/null
  "$2" --nodes 1000 --days 7 --seed 2 --load 0.8 -o "$trace_dir/synth2.csv" 2>/dev/null
}

scaled_mix() {  # scaled_mix DIR UP DOWN
  python3 - "$data/models/jobs-example.csv" "$1/jobs-scaled.csv" "$2" "$3" <<'PY'
import csv, sys
source, target, up, down = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
with open(source, newline="") as f:
    rows = list(csv.DictReader(f))
with open(target, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    for r in rows:
        r["up_cost_s"] = f"{float(r['up_cost_s']) * up:.6g}"
        r["down_cost_s"] = f"{float(r['down_cost_s']) * down:.6g}"
        w.writerow(r)
PY
}

args_of() {  # args_of TRACE [scaled]
  local jobs=("${mix[@]}")
  [[ ${2:-} != scaled ]] || jobs=("${scaled[@]}" --repeat-jobs 3600)
  case "$1" in
    kth) [[ ${2:-} != scaled ]] || echo "${scaled[*]} --repeat-jobs 14400" ;;
    summit-w0) echo "${summit[*]} ${jobs[*]} --start 0 --duration 172800" ;;
    summit-w1) echo "${summit[*]} ${jobs[*]} --start 172800 --duration 172800" ;;
    summit-w2) echo "${summit[*]} ${jobs[*]} --start 345600 --duration 172800" ;;
    summit-week) echo "${summit[*]} ${jobs[*]}" ;;
    synth1 | synth2) echo "--node-events $trace_dir/$1.csv ${jobs[*]}" ;;
    *) echo "$(basename "$0"): unknown trace $1" >&2; exit 2 ;;
  esac
}
