#!/usr/bin/env bash
# One command-line test of `gaptrain simulate`; tests/cli/CMakeLists.txt registers each.
#
#   run_simulate_case.sh ok  GAPTRAIN ARGS...         `simulate ARGS --json --log --plot` exits 0,
#                                                     nothing on stdout or stderr (not a terminal),
#                                                     and the three outputs are consistent
#   run_simulate_case.sh bad GAPTRAIN EXPECT ARGS...  exit 2, nothing on stdout, one line on
#                                                     stderr holding EXPECT
#   run_simulate_case.sh table GAPTRAIN ARGS...       without --json, stdout is the table for
#                                                     people, its numbers those of `--json`
#   run_simulate_case.sh stdout GAPTRAIN ARGS...      `--json -`, `--json` without FILE and
#                                                     `--pretty` put the JSON summary on stdout,
#                                                     `--log -` the CSV log, with no file named -
#   run_simulate_case.sh plot GAPTRAIN ARGS...        `--plot` draws the capacity (regular,
#                                                     elastic, idle) with reclaim markers and no
#                                                     job of its own; `--plot-jobs` each job
#   run_simulate_case.sh compare GAPTRAIN ARGS...     `--compare` prints a table with every
#                                                     policy's row, `--json FILE` the same
#                                                     rows, each under the oracle bound;
#                                                     `--json` alone the JSON instead
#   run_simulate_case.sh help GAPTRAIN                `simulate --help` names every option
#   run_simulate_case.sh same GAPTRAIN A B ARGS...    `--node-events A` and `--node-events B`
#                                                     give the same trace and the same summary
#   run_simulate_case.sh gzip_bomb GAPTRAIN ARGS...   a 64 MiB node-event log gzipped to ~64 KB,
#                                                     read with --max-input-mb 1: refused like
#                                                     `bad` says, naming the limit
#   run_simulate_case.sh fifo GAPTRAIN OPTION ARGS... `OPTION FIFO ARGS`, FIFO a named pipe nobody
#                                                     writes: refused like `bad` says, at once
#   run_simulate_case.sh goodput GAPTRAIN ARGS...     with --models: under --batch global every
#                                                     sample is worth about one (progress ~
#                                                     useful samples), under per-node and adaptive at
#                                                     most one; the JSON names models and rule,
#                                                     the table has the progress row
#   run_simulate_case.sh long_value GAPTRAIN ARGS...  a job whose model is a 10 MB name: refused
#                                                     like `bad` says, in a line < 400 bytes
set -euo pipefail
# Debian's python3 first (tests/slurm/case_lib.sh says why: a shim found first costs 0.38 s a start).
PATH=/usr/bin:$PATH

mode="$1"
gaptrain="$2"
shift 2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in stdout stderr; do
    [[ -s "$tmp/$f" ]] && { echo "--- $f:" >&2; head -c 4000 "$tmp/$f" >&2; echo >&2; }
  done
  exit 1
}

run() {
  rc=0
  "$gaptrain" simulate "$@" </dev/null >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
}

# Exit status 2, nothing on stdout, one line on stderr holding $1.
expect_refused() {
  [[ "$rc" == 2 ]] || fail "exit status $rc, expected 2"
  [[ ! -s "$tmp/stdout" ]] || fail "stdout is not empty"
  [[ "$(wc -l <"$tmp/stderr")" -eq 1 ]] || fail "stderr is not exactly one line"
  [[ "$(<"$tmp/stderr")" == *"$1"* ]] || fail "stderr does not contain: $1"
}

case "$mode" in
  ok)
    run "$@" --json "$tmp/summary.json" --log "$tmp/log.csv" --plot "$tmp/plot.svg"
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $*)"
    [[ ! -s "$tmp/stdout" ]] || fail "stdout is not empty although --json was given"
    [[ ! -s "$tmp/stderr" ]] || fail "stderr is not empty (no terminal, so no progress bar)"
    python3 - "$tmp" <<'PY' || fail "output check failed"
import csv, json, sys
tmp = sys.argv[1]
s = json.load(open(f"{tmp}/summary.json"))
keys = ["hole_node_seconds", "allocated_node_seconds", "utilization", "usable_node_seconds",
        "usable_utilization", "useful_samples",
        "ideal_samples", "efficiency", "oracle_samples", "jobs_submitted", "jobs_completed",
        "rescales", "solver_ms_p50", "solver_ms_p99", "solver_ms_max", "cycles", "regular_waits",
        "regular_wait_s_p50", "regular_wait_s_p99", "regular_wait_s_max", "mean_jct_s",
        "p90_jct_s", "makespan_s", "reclaims", "preemptions", "requeues", "pauses", "parameters"]
missing = [k for k in keys if k not in s]
assert not missing, f"summary lacks {missing}"
eps = 1e-6
assert s["hole_node_seconds"] > 0, "no holes"
assert s["useful_samples"] > 0, "no progress"
assert s["allocated_node_seconds"] <= s["hole_node_seconds"] * (1 + eps)
assert s["allocated_node_seconds"] <= s["usable_node_seconds"] * (1 + eps)
assert s["usable_node_seconds"] <= s["hole_node_seconds"] * (1 + eps)
assert s["useful_samples"] <= s["ideal_samples"] * (1 + eps)
assert 0 < s["efficiency"] <= 1 + eps, s["efficiency"]
# The oracle bound (--oracle) is an upper bound of the run (docs/simulator.md).
if s["oracle_samples"] is not None:
    assert s["useful_samples"] <= s["oracle_samples"], (s["useful_samples"], s["oracle_samples"])
    assert 0 < s["fraction_of_oracle"] <= 1, s["fraction_of_oracle"]
    assert s["oracle_bound"] in ("per-job LP", "per-model LP"), s["oracle_bound"]
# A regular job waits for an elastic node no longer than the reclaim's grace (1 s by default).
assert s["regular_waits"] >= 0 and s["regular_wait_s_max"] <= 1.0 + eps, s["regular_wait_s_max"]
assert s["cycles"] >= s["solves"] >= 0
assert s["solver_ms_p50"] <= s["solver_ms_p99"] <= s["solver_ms_max"]
for k in ("policy", "learn", "trace", "jobs", "curves", "max_running", "horizon_s", "config"):
    assert k in s["parameters"], f"parameters lack {k}"
import os
if "EXPECT_HORIZON_S" in os.environ:  # what --config set
    assert s["parameters"]["horizon_s"] == float(os.environ["EXPECT_HORIZON_S"]), s["parameters"]
if "EXPECT_PARAMETERS" in os.environ:  # a JSON object: these parameters, with these values
    for key, value in json.loads(os.environ["EXPECT_PARAMETERS"]).items():
        assert s["parameters"].get(key) == value, (key, s["parameters"].get(key), value)
if "EXPECT_SUMMARY" in os.environ:  # a JSON object: these summary values
    for key, value in json.loads(os.environ["EXPECT_SUMMARY"]).items():
        assert s.get(key) == value, (key, s.get(key), value)
assert s["preemptions"] <= s["reclaims"], (s["preemptions"], s["reclaims"])
rows = list(csv.DictReader(open(f"{tmp}/log.csv")))
assert rows, "empty log"
assert list(rows[0]) == ["time_s", "idle_nodes", "allocated_nodes", "jobs_running",
                         "useful_samples", "rescale_loss_samples", "solver_ms"], list(rows[0])
last = -1.0
for r in rows:
    t = float(r["time_s"])
    assert t >= last, "log time goes backwards"
    last = t
    assert int(r["allocated_nodes"]) <= int(r["idle_nodes"])
assert abs(float(rows[-1]["useful_samples"]) - s["useful_samples"]) <= 1e-5 * s["useful_samples"] + 1
svg = open(f"{tmp}/plot.svg").read()
assert svg.lstrip().startswith("<svg") or svg.lstrip().startswith("<?xml"), "not an SVG"
assert svg.rstrip().endswith("</svg>"), "SVG not closed"
PY
    ;;
  bad)
    expect="$1"
    shift
    run "$@"
    expect_refused "$expect"
    ;;
  same)
    first="$1"
    second="$2"
    shift 2
    for input in "$first" "$second"; do
      run --node-events "$input" "$@" --json "$tmp/$(basename "$input").json"
      [[ "$rc" == 0 ]] || fail "exit status $rc (simulate --node-events $input $*)"
    done
    python3 - "$tmp/$(basename "$first").json" "$tmp/$(basename "$second").json" <<'PY' ||
import json, sys
a, b = (json.load(open(path)) for path in sys.argv[1:])
for key in ("hole_node_seconds", "allocated_node_seconds", "useful_samples", "jobs_completed"):
    assert a[key] == b[key], f"{key}: {a[key]} and {b[key]}"
assert a["parameters"]["trace_nodes"] == b["parameters"]["trace_nodes"], \
    f'trace_nodes: {a["parameters"]["trace_nodes"]} and {b["parameters"]["trace_nodes"]}'
PY
      fail "the two logs do not give the same replay"
    ;;
  gzip_bomb)
    python3 - "$tmp/events.csv.gz" <<'PY'
import gzip, sys
row = b"1700000000,node0,idle\n"
with gzip.open(sys.argv[1], "wb", compresslevel=9) as out:
    out.write(b"time,node,state\n")
    for _ in range(64):
        out.write(row * ((1 << 20) // len(row)))
PY
    run --node-events "$tmp/events.csv.gz" --max-input-mb 1 "$@"
    expect_refused "$tmp/events.csv.gz: decompressed, it is larger than 1 MiB, the limit on an input file (--max-input-mb raises it)"
    ;;
  fifo)
    option="$1"
    shift
    mkfifo "$tmp/input"
    run "$option" "$tmp/input" "$@"
    expect_refused "$tmp/input: cannot read: it is a named pipe (FIFO), not a regular file"
    ;;
  long_value)
    python3 - "$tmp/jobs.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    out.write("id,submit_s,model,min_nodes,max_nodes,work_samples,up_cost_s,down_cost_s\n")
    out.write("a,0," + "m" * (10 << 20) + ",1,2,1000,1,1\n")
PY
    run --jobs "$tmp/jobs.csv" "$@"
    expect_refused "jobs.csv:2: model: no curve for \"$(printf 'm%.0s' {1..60})...\""
    [[ "$(wc -c <"$tmp/stderr")" -lt 400 ]] || fail "the error line is $(wc -c <"$tmp/stderr") bytes"
    ;;
  goodput)
    for rule in adaptive per-node global; do
      run "$@" --batch "$rule" --json "$tmp/$rule.json"
      [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --batch $rule)"
      run "$@" --batch "$rule"
      [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --batch $rule, the table)"
      grep -q "^progress  .* samples at the tuned batches (a sample worth .*; batch $rule)$" \
        "$tmp/stdout" || fail "the table has no progress row for $rule"
    done
    python3 - "$tmp" <<'PY' || fail "the goodput summaries are not consistent"
import json, sys
runs = {r: json.load(open(f"{sys.argv[1]}/{r}.json")) for r in ("adaptive", "per-node", "global")}
for rule, s in runs.items():
    assert s["parameters"]["batch"] == rule, s["parameters"]
    assert s["parameters"]["models"], s["parameters"]
    assert s["parameters"]["curves"] is None, s["parameters"]
    assert s["progress"] > 0, (rule, s["progress"])
    assert s["progress"] <= s["useful_samples"] * (1 + 1e-9), (rule, s["progress"], s["useful_samples"])
    assert (s["mean_jct_s"] is None) == (s["jobs_completed"] == 0), (rule, s["mean_jct_s"])
    assert (s["p90_jct_s"] is None) == (s["jobs_completed"] == 0), (rule, s["p90_jct_s"])
    if s["mean_jct_s"] is not None:
        assert 0 < s["mean_jct_s"] <= s["simulated_s"], (rule, s["mean_jct_s"])
        assert 0 < s["p90_jct_s"] <= s["simulated_s"], (rule, s["p90_jct_s"])
    if s["makespan_s"] is not None:  # every job of the mix completed; none took longer than it
        assert s["jobs_completed"] == s["jobs_submitted"], (rule, s)
        assert s["makespan_s"] >= max(s["mean_jct_s"], s["p90_jct_s"]), (rule, s)
g = runs["global"]
# M0 split over the nodes rounds each node's share up: a sample or two more a step, worth
# (phi + M0) / (phi + M0 + a few) each.
assert g["progress"] >= 0.99 * g["useful_samples"], g
# Several nodes at each node's own batch: a larger global batch, each sample worth less.
p = runs["per-node"]
assert p["progress"] < p["useful_samples"] * 0.999, p
PY
    ;;
  table)
    run "$@" --oracle
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --oracle)"
    [[ ! -s "$tmp/stderr" ]] || fail "stderr is not empty (no terminal, so no progress bar)"
    cp "$tmp/stdout" "$tmp/table.txt"
    run "$@" --oracle --json "$tmp/summary.json"
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --oracle --json FILE)"
    [[ ! -s "$tmp/stdout" ]] || fail "stdout is not empty although --json named a file"
    python3 - "$tmp/table.txt" "$tmp/summary.json" <<'PY' || fail "the table does not match the JSON"
import json, sys
table = open(sys.argv[1]).read()
s = json.load(open(sys.argv[2]))
lines = table.splitlines()
assert lines[0].startswith("gaptrain simulate: " + s["parameters"]["trace"] + ", policy "), lines[0]
rows = {line[:16].strip(): line[16:] for line in lines[1:] if not line.startswith("usable:")}
for label in ("nodes", "window", "useful samples", "oracle bound", "node-hours", "utilization",
              "jobs", "resizes", "reclaims", "solver", "wall time"):
    assert label in rows, f"no row {label}: {table}"
assert rows["nodes"] == str(s["parameters"]["trace_nodes"]), rows["nodes"]
assert rows["useful samples"].startswith(f'{s["useful_samples"]:.6g}, efficiency {s["efficiency"]:.3f}'), \
    rows["useful samples"]
assert f'{s["oracle_samples"]:.6g} ({s["oracle_bound"]})' in rows["oracle bound"], rows["oracle bound"]
assert rows["jobs"].startswith(f'{s["jobs_submitted"]:,} submitted, {s["jobs_completed"]:,} completed'), \
    rows["jobs"]
assert rows["resizes"].startswith(f'{s["rescales"]:,}: '), rows["resizes"]
kinds = rows["resizes"].split(": ")[1].split(", ")
assert sum(int(k.split()[0].replace(",", "")) for k in kinds) == s["rescales"], rows["resizes"]
assert rows["reclaims"].startswith(f'{s["reclaims"]:,} node'), rows["reclaims"]
hours = {part.split()[0]: float(part.split()[1].replace(",", ""))
         for part in rows["node-hours"].split(" (of ")[0].split(", ")}
assert abs(hours["elastic"] - s["allocated_node_seconds"] / 3600) <= 0.05, hours
assert abs(hours["idle"] - (s["hole_node_seconds"] - s["allocated_node_seconds"]) / 3600) <= 0.05, hours
total = s["parameters"]["trace_nodes"] * s["simulated_s"] / 3600
assert abs(sum(hours.values()) - total) <= 0.15, (hours, total)
PY
    ;;
  plot)
    run "$@" --plot "$tmp/capacity.svg" --json "$tmp/summary.json"
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --plot)"
    run "$@" --plot "$tmp/jobs.svg" --plot-jobs
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --plot --plot-jobs)"
    python3 - "$tmp/capacity.svg" "$tmp/jobs.svg" "$tmp/summary.json" <<'PY' || fail "plot check failed"
import json, re, sys
capacity, jobs = (open(path).read() for path in sys.argv[1:3])
s = json.load(open(sys.argv[3]))
for svg in (capacity, jobs):
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>"), "not an SVG"
    assert "<title>regular workload</title>" in svg and "<title>idle (hole, unallocated)</title>" in svg
marked = sum(int(n) for n in re.findall(r"<title>(\d+) nodes? taken back from elastic jobs", capacity))
assert s["reclaims"] > 0, "the input should take nodes back"
assert marked == s["reclaims"], (marked, s["reclaims"])
assert "<title>elastic jobs</title>" in capacity
assert "<title>job " not in capacity, "a job drawn on its own without --plot-jobs"
assert "<title>job " in jobs and "<title>elastic jobs</title>" not in jobs
PY
    ;;
  stdout)
    cd "$tmp"  # a file named - would land here
    for json in "--json -" "--json --pretty" "--json" "--pretty"; do
      # shellcheck disable=SC2086 # the options split on purpose
      run "$@" $json
      [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* $json)"
      python3 -c 'import json, sys; assert json.load(sys.stdin)["useful_samples"] > 0' \
        <"$tmp/stdout" || fail "$json: stdout is not the summary"
    done
    run "$@" --json "$tmp/summary.json" --log -
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --log -)"
    [[ "$(head -n 1 "$tmp/stdout")" == time_s,idle_nodes,* ]] || fail "--log -: stdout is not the log"
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/summary.json" ||
      fail "--log -: the summary did not go to --json's file"
    [[ ! -e "$tmp/-" ]] || fail "a file named - was written"
    ;;
  compare)
    run "$@" --compare --json "$tmp/compare.json"
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --compare)"
    [[ ! -s "$tmp/stderr" ]] || fail "stderr is not empty (no terminal, so no progress)"
    for row in gaptrain bftrainer bftrainer-method equal-share "oracle bound"; do
      grep -q -- "^$row" "$tmp/stdout" || fail "the table has no row $row"
    done
    grep -q -- "^policy .* done  *mean JCT  *p90 JCT  *makespan$" "$tmp/stdout" ||
      fail "the table has no completion-time columns: $(head -n 1 "$tmp/stdout")"
    cp "$tmp/compare.json" "$tmp/compare-file.json"
    run "$@" --compare --json
    [[ "$rc" == 0 ]] || fail "exit status $rc (simulate $* --compare --json)"
    python3 -c 'import json, sys; assert len(json.load(sys.stdin)["rows"]) == 4' \
      <"$tmp/stdout" || fail "--compare --json: stdout is not the JSON"
    python3 - "$tmp/compare.json" <<'PY' || fail "--compare JSON check failed"
import json, sys
c = json.load(open(sys.argv[1]))
names = [r["policy"] for r in c["rows"]]
assert names == ["gaptrain", "bftrainer", "bftrainer-method", "equal-share"], names
assert c["oracle_bound"] in ("per-job LP", "per-model LP"), c["oracle_bound"]
for r in c["rows"]:
    assert 0 < r["useful_samples"] <= c["oracle_samples"], (r, c["oracle_samples"])
    assert abs(r["fraction_of_oracle"] - r["useful_samples"] / c["oracle_samples"]) < 1e-9
ref = c["rows"][2]
assert abs(ref["ratio_to_bftrainer_method"] - 1) < 1e-12
assert ref["settings"] in ("throughput, horizon 5 s, beside the scheduler",
                           "throughput, horizon 10 s, beside the scheduler"), ref["settings"]
for r in c["rows"]:
    assert 0 < r["usable_utilization"] <= 1 + 1e-9, r
    assert (r["mean_jct_s"] is None) == (r["jobs_completed"] == 0), r
    assert (r["p90_jct_s"] is None) == (r["jobs_completed"] == 0), r
    assert "makespan_s" in r, r
PY
    ;;
  help)
    "$gaptrain" simulate --help >"$tmp/stdout" 2>"$tmp/stderr" || fail "--help failed"
    for text in --swf --node-events --jobs --curves --policy --learn --nodes --max-running \
      --start --duration --json --log --plot --plot-jobs --max-input-mb bftrainer equal-share \
      --oracle --compare --pretty --node-types --ignore-node-types --home "node-hours" \
      "Exit status"; do
      grep -q -- "$text" "$tmp/stdout" || fail "simulate --help does not mention $text"
    done
    ;;
  *)
    fail "unknown mode '$mode'"
    ;;
esac
