# shellcheck shell=bash
# The comparison of docs/benchmarks.md's "told" tables (allowed sizes, node types), shared by
# allowed_sizes_table.sh and node_types_table.sh (sourced, after trace_inputs.sh, not run).
# told_vs_not_told GAPTRAIN DIR FLAG TRACE... runs `gaptrain simulate` on each TRACE's inputs
# (args_of) twice, as is and with FLAG (what gaptraind is then not told), two runs at a time,
# writing DIR/TRACE.told.json and DIR/TRACE.blind.json, and prints the markdown table.
told_vs_not_told() {  # told_vs_not_told GAPTRAIN DIR FLAG TRACE...
  local gaptrain=$1 dir=$2 flag=$3 trace a
  shift 3
  for trace in "$@"; do
    a="$(args_of "$trace")"
    echo "$gaptrain simulate $a --json $dir/$trace.told.json >/dev/null"
    echo "$gaptrain simulate $a $flag --json $dir/$trace.blind.json >/dev/null"
  done | xargs -P 2 -I{} bash -c "{}"

  python3 - "$dir" "$@" <<'PY'
import json, sys
out, traces = sys.argv[1], sys.argv[2:]
print("| trace | useful samples, told | not told | told / not told | jobs done, told | not told | rescales, told | not told |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for t in traces:
    told = json.load(open(f"{out}/{t}.told.json"))
    blind = json.load(open(f"{out}/{t}.blind.json"))
    print(f"| {t} | {told['useful_samples']:.4g} | {blind['useful_samples']:.4g} | "
          f"{told['useful_samples'] / blind['useful_samples']:.3f} | {told['jobs_completed']} | "
          f"{blind['jobs_completed']} | {told['rescales']} | {blind['rescales']} |")
PY
}
