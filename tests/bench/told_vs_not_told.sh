# shellcheck shell=bash
# What docs/benchmarks.md's "told" tables (allowed sizes, node types) share: sourced by
# allowed_sizes_table.sh and node_types_table.sh, not run.
#
# told_setup BUILD [TRACE...] sets gaptrain (BUILD's), out (a scratch folder, removed at exit),
# traces (those given, else summit-w0 summit-w1 synth1 synth2) and writes the traces' inputs
# into out (trace_inputs.sh; its args_of then names each trace's arguments).
# told_vs_not_told FLAG runs `gaptrain simulate` on each trace twice, as is and with FLAG (what
# gaptraind is then not told), two runs at a time, and prints the markdown table. A script may
# define more_args_of TRACE: arguments for that trace's runs beyond args_of's.
# shellcheck source=trace_inputs.sh
source "$(dirname "${BASH_SOURCE[0]}")/trace_inputs.sh"

told_setup() {  # told_setup BUILD [TRACE...]
  gaptrain="$1/controller/gaptrain"
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
  traces=("${@:2}")
  [[ ${#traces[@]} -gt 0 ]] || traces=(summit-w0 summit-w1 synth1 synth2)
  trace_inputs "$out" "$1/tests/bench/make_node_events"
}

told_vs_not_told() {  # told_vs_not_told FLAG
  local trace a
  for trace in "${traces[@]}"; do
    a="$(args_of "$trace")"
    if declare -F more_args_of >/dev/null; then a+=" $(more_args_of "$trace")"; fi
    echo "$gaptrain simulate $a --json $out/$trace.told.json >/dev/null"
    echo "$gaptrain simulate $a $1 --json $out/$trace.blind.json >/dev/null"
  done | xargs -P 2 -I{} bash -c "{}"

  python3 - "$out" "${traces[@]}" <<'PY'
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
