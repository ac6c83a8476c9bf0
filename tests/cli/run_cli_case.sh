#!/usr/bin/env bash
# One command-line test of the `gaptrain` executable; tests/cli/CMakeLists.txt registers each.
#
#   run_cli_case.sh bad     GAPTRAIN FILE EXPECT_FILE  exit 2, nothing on stdout, exactly one line
#                                                      on stderr holding EXPECT_FILE's text
#   run_cli_case.sh solve   GAPTRAIN FILE [ARGS...]    `solve ARGS FILE` exits 0 with one line of
#                                                      JSON: status optimal, a feasible allocation
#   run_cli_case.sh mixed   GAPTRAIN FILE JOB TYPES    the same, and JOB (which mixes types) is
#                                                      given nodes of at least TYPES node types
#   run_cli_case.sh stdin   GAPTRAIN FILE              the same through `solve --pretty -` < FILE
#   run_cli_case.sh missing GAPTRAIN                   a nonexistent file: exit 2, "cannot read"
#   run_cli_case.sh fifo    GAPTRAIN                   a named pipe nobody writes: exit 2 at once,
#                                                      "not a regular file" (it used to hang)
#   run_cli_case.sh usage   GAPTRAIN ARGS...           a bad command line: exit 2, stdout empty
#   run_cli_case.sh help    GAPTRAIN                   --help texts name every option and command
#   run_cli_case.sh unreachable GAPTRAIN ARGS...       a daemon nobody listens for: exit 1, stdout
#                                                      empty, one line on stderr saying so
#   run_cli_case.sh version GAPTRAIN VERSION           --version prints "gaptrain VERSION"
set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  for stream in stdout stderr; do
    if [[ -s "$tmp/$stream" ]]; then
      echo "--- $stream:" >&2
      head -c 4000 "$tmp/$stream" >&2
      echo >&2
    fi
  done
  exit 1
}

# run ARGS...: runs the binary with stdin from $stdin_file (default /dev/null), leaving $tmp/stdout,
# $tmp/stderr and the exit status in $rc.
stdin_file=/dev/null
run() {
  rc=0
  "$gaptrain" "$@" <"$stdin_file" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
}

expect_rc() {
  [[ "$rc" == "$1" ]] || fail "exit status $rc, expected $1 (gaptrain ${*:2})"
}

expect_empty() {
  [[ ! -s "$tmp/$1" ]] || fail "$1 is not empty"
}

# Exactly one newline-terminated, non-empty line.
expect_one_line() {
  [[ -s "$tmp/$1" ]] || fail "$1 is empty, expected one line"
  [[ "$(wc -l <"$tmp/$1")" -eq 1 && -z "$(tail -c 1 "$tmp/$1")" ]] ||
    fail "$1 is not exactly one line"
}

expect_contains() {
  local text
  text="$(<"$tmp/$1")"
  [[ "$text" == *"$2"* ]] || fail "$1 does not contain: $2"
}

# The result on stdout is valid JSON, status optimal, and a feasible allocation of the problem:
# known jobs and nodes only, every node in at most one job, counts in {0} u [min, max], each
# job's nodes of one type it has a curve for (of any types for a job that sets mix_types).
# With JOB and TYPES: JOB's nodes are of at least TYPES types.
expect_feasible_result() {
  python3 - "$1" "$tmp/stdout" "${2:-}" "${3:-0}" <<'EOF' || fail "result check failed"
import json
import sys

problem = json.load(open(sys.argv[1]))
result = json.load(open(sys.argv[2]))
mixer, least_types = sys.argv[3], int(sys.argv[4])
assert result["status"] == "optimal", f"status {result['status']!r}"
for key in ("objective", "best_bound", "solve_ms"):
    assert isinstance(result[key], (int, float)), f"{key} is not a number"
assert result["best_bound"] >= result["objective"] - 1e-6 * max(1.0, abs(result["objective"]))
nodes = {node["name"] for node in problem["nodes"]}
jobs = {job["id"]: job for job in problem["jobs"]}
allocation = result["allocation"]
assert set(allocation) == set(jobs), f"jobs {sorted(allocation)} != {sorted(jobs)}"
owner = {}
for job, names in allocation.items():
    count = len(names)
    # Allowed sizes, when given, also stand in for a bound left out.
    sizes = jobs[job].get("allowed_sizes") or []
    low = jobs[job].get("min_nodes", min(sizes, default=1))
    high = jobs[job].get("max_nodes", max(sizes, default=0))
    assert count == 0 or (low <= count <= high and (not sizes or count in sizes)), \
        f"{job} got {count} nodes"
    # Node types: one type a job has a curve for ("curves" absent: every type).
    types = {node["name"]: node.get("type") or "" for node in problem["nodes"]}
    given = {types[name] for name in names if name in types}
    assert len(given) <= 1 or jobs[job].get("mix_types"), f"{job} got nodes of types {sorted(given)}"
    assert job != mixer or len(given) >= least_types, f"{job} got nodes of types {sorted(given)}"
    curves = jobs[job].get("curves")
    assert curves is None or given <= set(curves), f"{job} got a type it has no curve for"
    for name in names:
        assert name in nodes, f"unknown node {name!r}"
        assert name not in owner, f"node {name!r} in both {owner[name]!r} and {job!r}"
        owner[name] = job
EOF
}

mode="$1"
gaptrain="$2"
shift 2
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

case "$mode" in
  bad)
    [[ -f "$2" ]] || fail "missing $2: every bad-input file needs a NAME.expect beside it"
    run solve "$1"
    expect_rc 2 solve "$1"
    expect_empty stdout
    expect_one_line stderr
    expect_contains stderr "gaptrain solve: $1: "
    expect_contains stderr "$(<"$2")"
    ;;
  solve)
    file="$1"
    shift
    run solve "$@" "$file"
    expect_rc 0 solve "$@" "$file"
    expect_empty stderr
    expect_one_line stdout
    expect_feasible_result "$file"
    ;;
  mixed)
    run solve "$1"
    expect_rc 0 solve "$1"
    expect_empty stderr
    expect_one_line stdout
    expect_feasible_result "$1" "$2" "$3"
    ;;
  stdin)
    stdin_file="$1"
    run solve --pretty -
    expect_rc 0 solve --pretty -
    expect_empty stderr
    [[ "$(wc -l <"$tmp/stdout")" -gt 1 ]] || fail "--pretty printed a single line"
    expect_feasible_result "$1"
    ;;
  missing)
    run solve "$tmp/no-such-problem.json"
    expect_rc 2 solve "$tmp/no-such-problem.json"
    expect_empty stdout
    expect_one_line stderr
    expect_contains stderr \
      "gaptrain solve: cannot read \"$tmp/no-such-problem.json\": No such file or directory"
    ;;
  fifo)
    mkfifo "$tmp/problem.json"
    run solve "$tmp/problem.json"
    expect_rc 2 solve "$tmp/problem.json"
    expect_empty stdout
    expect_one_line stderr
    expect_contains stderr "gaptrain solve: cannot read \"$tmp/problem.json\": it is a named pipe (FIFO), not a regular file"
    ;;
  usage)
    run "$@"
    expect_rc 2 "$@"
    expect_empty stdout
    [[ -s "$tmp/stderr" ]] || fail "no error message on stderr"
    ;;
  unreachable)
    run "$@"
    expect_rc 1 "$@"
    expect_empty stdout
    expect_one_line stderr
    expect_contains stderr "gaptrain $1: "
    ;;
  help)
    # The usage lines without CLI11's "Usage: " before them: CLI11 2.6 (Debian unstable) no
    # longer prints it.
    run --help
    expect_rc 0 --help
    for text in "gaptrain [OPTIONS] SUBCOMMAND" "solve" "--version" "Exit status"; do
      expect_contains stdout "$text"
    done
    run solve --help
    expect_rc 0 solve --help
    for text in "gaptrain solve [OPTIONS] FILE" "'-'" "--time-limit SECONDS" "--pretty" \
      '"horizon_s"' '"objective"' '"nodes"' '"hole_end_s"' '"jobs"' '"curve"' '"batch_host"' \
      '"weight"' '"solver"' '"max_hole_classes"' '"status"' "Exit status"; do
      expect_contains stdout "$text"
    done
    run job --help
    expect_rc 0 job --help
    for text in "ID" "--json" "--plot FILE.svg" "--controller HOST:PORT" "PrivateData=jobs" \
      "no such job in its history" "Exit status"; do
      expect_contains stdout "$text"
    done
    ;;
  version)
    run --version
    expect_rc 0 --version
    expect_one_line stdout
    [[ "$(<"$tmp/stdout")" == "gaptrain $1" ]] ||
      fail "--version printed '$(<"$tmp/stdout")', expected 'gaptrain $1' (common/include/gaptrain/version.hpp out of date?)"
    ;;
  *)
    fail "unknown mode '$mode'"
    ;;
esac
