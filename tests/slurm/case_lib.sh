# Shared by the Slurm test scripts (run_*_case.sh): skipping when not root, the fixture's
# environment, polling with deadlines, reading `scontrol show job`, and submitting jobs that are
# cancelled whatever happens, so the next case finds idle nodes. Source it after setting
# case_name; then call `case_setup ENV_SH`.
#
# Hooks a script may set before its cases run:
#   submit_args=(...)     extra sbatch arguments of every submit (e.g. -D DIR -o FILE)
#   cleanup_steps+=(CMD)  commands run at exit before the jobs are cancelled (eval'd)
#   extra_jobs            a function printing more job ids to cancel at exit
#   job_context           a function printing more to say when a job ends unexpectedly
#   poll_context          a function printing more to say when a poll times out
# shellcheck shell=bash

fail() { echo "FAIL: $*" >&2; exit 1; }
# `WRITER | matches GREP_ARGS`, never `WRITER | grep -q`: grep -q leaves at its first match, a
# writer with more to say then dies of SIGPIPE, and pipefail makes the whole pipeline fail, found
# or not (elastic.notice_before_drain failed so in CI: "never drained", reading a long log).
matches() { grep "$@" >/dev/null; }
# shellcheck disable=SC2154 # case_name is set by the script that sources this file
note() { echo "$case_name: $*" >&2; }

case_setup() {  # case_setup ENV_SH: skip (77) when not root, load the fixture's environment
  local env_sh=$1
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: the Slurm tests need root (the fixture cluster only runs as root)" >&2
    exit 77
  fi
  [ -f "$env_sh" ] || fail "$env_sh missing: did the slurm_cluster fixture start?"
  # shellcheck disable=SC1090 # written by the fixture
  source "$env_sh"
  # Debian's python3 before any other on PATH: the cases start python3 in their polls (every
  # query_status, twice a poll in elastic_at), and a version manager's shim found first costs
  # far more than the start itself (pyenv's: 0.38 s of CPU against 0.05 s for /usr/bin/python3),
  # which made the tests' polling a core's worth of load of its own.
  PATH=/usr/bin:$PATH
  jobs_file=$(mktemp)
  trap cleanup EXIT
}

# Skips (77) unless the fixture's cluster runs the plugin and gaptraind and GAPTRAIN_CLI (set by
# CMake) is the `gaptrain` binary: for the cases that need gaptrain's parts.
require_gaptrain() {
  if [ ! -s "$GAPTRAIN_CLUSTER_DIR/etc/plugstack.conf" ] ||
    [ ! -f "$GAPTRAIN_CLUSTER_DIR/etc/controller.env" ] || [ ! -x "${GAPTRAIN_CLI:-}" ]; then
    echo "SKIP: the cluster runs without spank_gaptrain.so or gaptraind, or GAPTRAIN_CLI is not set" >&2
    exit 77
  fi
}

# query_status PYTHON-EXPRESSION: evaluates it with `s` bound to `gaptrain status --json` and
# `job(id)` to that elastic job's entry (None when not managed), and prints the result (lists
# one item a line). Fails when the daemon does not answer.
query_status() {
  local json
  json=$("$GAPTRAIN_CLI" status --json) || return 1
  python3 -c '
import json, sys
s = json.loads(sys.argv[2])
def job(i):
    return next((j for j in s["elastic_jobs"] if j["job_id"] == i), None)
r = eval(sys.argv[1])
sys.stdout.write("".join(f"{x}\n" for x in r) if isinstance(r, list) else f"{r}\n")' "$1" "$json"
}

managed() { [ "$(query_status "job($1) is not None")" = True ]; }  # gaptraind manages JOB

submit_args=()
cleanup_steps=()

# Kept in a file: `submit` runs in $(...), a subshell, where adding to an array is lost.
cleanup() {
  local step id deadline submitted
  for step in "${cleanup_steps[@]}"; do eval "$step" || true; done
  mapfile -t submitted <"$jobs_file"
  rm -f "$jobs_file"
  if declare -F extra_jobs >/dev/null; then
    mapfile -t -O "${#submitted[@]}" submitted < <(extra_jobs 2>/dev/null)
  fi
  [ ${#submitted[@]} -eq 0 ] && return 0
  scancel "${submitted[@]}" 2>/dev/null || true
  # Wait (without failing) until they are gone: a case that wants a node must not queue behind
  # the previous case's epilog.
  deadline=$((SECONDS + 60))
  for id in "${submitted[@]}"; do
    until job_ended "$id" 2>/dev/null || ((SECONDS >= deadline)); do sleep 0.2; done
  done
}

# poll SECONDS DESCRIPTION CMD...: runs CMD until it succeeds, every 0.2 s for 5 s, then every
# second. A look starts processes (scontrol, `gaptrain status`, python3: 0.02-0.1 s of CPU each),
# and a case waiting minutes for a training looked five times a second throughout, on CI's 2
# cores beside two other clusters' cases; what a case times (a regular job's start, a drain)
# comes within the first seconds, where the looks stay 0.2 s apart.
poll() {
  local limit=$1 what=$2
  shift 2
  local started=$SECONDS deadline=$((SECONDS + limit))
  until "$@"; do
    ((SECONDS < deadline)) ||
      fail "timed out after ${limit}s waiting for $what$(declare -F poll_context >/dev/null && echo "; $(poll_context)")"
    if ((SECONDS - started < 5)); then sleep 0.2; else sleep 1; fi
  done
}

job_line() { scontrol show job -o "$1"; }
job_field() {  # job_field JOBID KEY: one Key=Value word of `scontrol show job -o`
  job_line "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1
}
job_field_is() { [ "$(job_field "$1" "$2")" = "$3" ]; }  # job_field_is JOBID KEY VALUE

job_state_is() {  # job_state_is JOBID STATE; fails the test on a terminal state not wanted
  local st more=""
  st=$(job_field "$1" JobState)
  [ "$st" = "$2" ] && return 0
  case $st in
    FAILED|CANCELLED|TIMEOUT|NODE_FAIL|PREEMPTED|BOOT_FAIL|DEADLINE|OUT_OF_MEMORY|COMPLETED)
      declare -F job_context >/dev/null && more=$(job_context "$1")
      fail "job $1 is $st, expected $2: $(job_line "$1")${more:+; $more}" ;;
  esac
  return 1
}

# The job and its processes are gone (no longer pending, running or completing).
job_ended() {
  case $(job_field "$1" JobState) in
    PENDING|CONFIGURING|RUNNING|COMPLETING|RESIZING|SUSPENDED|REQUEUED) return 1 ;;
  esac
}

submit() {  # submit SBATCH-ARGS...: prints the job id
  local id
  id=$(sbatch --parsable "${submit_args[@]}" "$@") || fail "sbatch $* failed"
  id=${id%%;*}
  echo "$id" >>"$jobs_file"
  echo "$id"
}
