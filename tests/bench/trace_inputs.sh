# The inputs of docs/benchmarks.md's policy tables, shared by compare_traces.sh and
# what_if_known_ends.sh (sourced, not run). trace_inputs DIR MAKE_NODE_EVENTS writes the two
# synthetic node-event logs into DIR; args_of TRACE then prints `gaptrain simulate`'s input
# arguments for TRACE: kth (the built-in KTH-SP2 year), summit-w0, summit-w1, summit-w2 (three
# disjoint 2-day windows of the Summit late week, 1,000 nodes), summit-week, synth1, synth2
# (make_node_events, 1,000 nodes, 7 days; seed 2 at load 0.8). Node-event inputs get the example
# job mix resubmitted hourly.
all_traces=(kth summit-w0 summit-w1 summit-w2 summit-week synth1 synth2)

trace_inputs() {  # trace_inputs DIR MAKE_NODE_EVENTS
  local data
  data="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/../shared/data"
  trace_dir=$1
  mix=(--jobs "$data/models/jobs-example.csv" --curves "$data/models/curves.csv" --repeat-jobs 3600)
  summit=(--node-events "$data/traces/summit-2021-02-late-node-events.csv.gz" --nodes 1000 "${mix[@]}")
  "$2" --nodes 1000 --days 7 --seed 1 -o "$trace_dir/synth1.csv" 2>/dev/null
  "$2" --nodes 1000 --days 7 --seed 2 --load 0.8 -o "$trace_dir/synth2.csv" 2>/dev/null
}

args_of() {  # args_of TRACE
  case "$1" in
    kth) echo "" ;;
    summit-w0) echo "${summit[*]} --start 0 --duration 172800" ;;
    summit-w1) echo "${summit[*]} --start 172800 --duration 172800" ;;
    summit-w2) echo "${summit[*]} --start 345600 --duration 172800" ;;
    summit-week) echo "${summit[*]}" ;;
    synth1 | synth2) echo "--node-events $trace_dir/$1.csv ${mix[*]}" ;;
    *) echo "$(basename "$0"): unknown trace $1" >&2; exit 2 ;;
  esac
}
