#!/usr/bin/env bash
# End to end: gaptraind resizing real elastic jobs on the 8-node cluster of the
# `elastic_cluster` ctest fixture, with gaptrain-launch as their batch script.
#   run_elastic_case.sh ENV_SH GAPTRAIN_LAUNCH CASE
# GAPTRAIN_CLI (set by CMake) is the `gaptrain` binary; EXAMPLE_DIR (pytorch case) the
# examples/pytorch-elastic directory. Exits 0 on success, 1 on failure, 77 (skipped) when not
# root, when the cluster runs without the plugin and gaptraind, or (pytorch) without torch.
# Every wait polls a condition with a deadline; no assertion is about timing except the one the
# issue asks for (a regular job starts within 5 s of its submission). This file holds what the
# cases share; the cases, by subject, are in elastic_*_cases.sh, sourced at its end.
set -euo pipefail

env_sh=${1:?usage: $0 ENV_SH GAPTRAIN_LAUNCH CASE}
launch=${2:?usage: $0 ENV_SH GAPTRAIN_LAUNCH CASE}
case_name=${3:?usage: $0 ENV_SH GAPTRAIN_LAUNCH CASE}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=case_lib.sh
source "$here/case_lib.sh"
case_setup "$env_sh"
require_gaptrain

work=$GAPTRAIN_CLUSTER_DIR/elastic-$case_name
rm -rf "$work"
mkdir -p "$work"
# shellcheck disable=SC2034 # read by case_lib.sh's submit
submit_args=(-D "$work" -o "$work/%j.out")
job_context() { echo "its output: $(tail -n 20 "$work/$1.out" 2>/dev/null)"; }
# The satellites of the elastic jobs end with them (gaptraind releases them); cancel any left.
extra_jobs() { squeue -h -o '%i %j' | awk '$2 ~ /^gaptrain:/ {print $1}'; }
max_start_s=5  # the issue's bound on a regular job's start after its submission

now() { date +%s.%N; }
seconds_since() { echo "$(now) - $1" | bc; }

# The elastic job runs on N nodes (its own and its satellites) with a live step on each.
elastic_at() {  # elastic_at JOB N
  [ "$(query_status "len(job($1)['nodes']) if job($1) else -1")" = "$2" ] &&
    [ "$(query_status "len(set(job($1)['running'])) if job($1) else -1")" = "$2" ]
}

curve_source_is() {  # curve_source_is JOB SOURCE: gaptraind's curve of JOB comes from SOURCE
  [ "$(query_status "job($1)['curve']['source'] if job($1) else 'gone'")" = "$2" ]
}

# gaptraind's grow and shrink costs of JOB are measured ones, each below SECONDS.
costs_learned_below() {  # costs_learned_below JOB SECONDS
  [ "$(query_status "(job($1) and job($1)['costs_source'] == 'learned' and
    max(job($1)['up_cost_s'], job($1)['down_cost_s']) < $2)")" = True ]
}

step_runs_on() {  # step_runs_on JOB NODE: gaptraind sees a step of elastic job JOB on NODE
  query_status "job($1)['running'] if job($1) else []" | matches -x "$2"
}

# Nodes of every running job and allocation, one a line: no node may appear twice.
no_node_shared() {
  local shared
  shared=$(squeue -h -t R -o %N | xargs -r -n1 scontrol show hostnames | sort | uniq -d)
  [ -z "$shared" ] || fail "nodes held by two jobs at once: $shared ($(squeue -h -t R -o '%i %j %N' | tr '\n' ';'))"
}

# A job running as a gaptrain-launch batch script: -N 1-8, cheap rescales (so one node's gain
# is worth a rescale to the allocator), whatever CMD.
submit_elastic() {  # submit_elastic CMD [SBATCH-ARGS...]
  local cmd=$1
  shift
  submit -p elastic -N 1-8 --elastic=1-8 --elastic-cost=1:1 -t 30 "$@" \
    --wrap "exec $launch --poll-ms 250 --grace-s 5 -- $cmd"
}
idle_loop="bash -c 'while true; do sleep 1; done'"

# An elastic job running the idle loop with a step on each of the 8 nodes; prints its id.
elastic_on_all_nodes() {  # elastic_on_all_nodes [SBATCH-ARGS...]
  local job
  job=$(submit_elastic "$idle_loop" "$@")
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 90 "elastic job $job on all 8 nodes" elastic_at "$job" 8
  echo "$job"
}

# Whether JOB runs; meanwhile each change of the nodes' states (and of JOB's pending reason) is
# added to TIMELINE, so that a late start can be explained from the test's output alone.
running_noting_nodes() {  # running_noting_nodes JOB T0 TIMELINE
  local states
  states="$(sinfo -h -N -o '%N=%t' | sort -u | tr '\n' ' ')reason=$(job_field "$1" Reason)"
  [ "$states" = "$(tail -n 1 "$3" | cut -d' ' -f2-)" ] ||
    echo "$(printf '%.1f' "$(seconds_since "$2")") $states" >>"$3"
  job_state_is "$1" RUNNING
}

# Seconds from JOB's submission to its start, as slurmctld logged them (millisecond stamps: the
# submit RPC, then the main scheduler's "Allocate" or the backfill's "Started"): the regular
# job's wait itself, which this script's own submit and polls overstate on a loaded machine
# (5.5 s observed where slurmctld logged 3.4). Slurm 26.05 logs no backfill start at this
# log level: then both times are scontrol's SubmitTime and StartTime (whole seconds; the wait
# within a second). Prints nothing if neither source has both.
slurmctld_wait_s() {  # slurmctld_wait_s JOB
  python3 - "$GAPTRAIN_CLUSTER_DIR/log/slurmctld.log" "$1" "$(job_field "$1" SubmitTime)" \
    "$(job_field "$1" StartTime)" <<'EOF'
import re
import sys
from datetime import datetime

log, job, submit_time, start_time = sys.argv[1:5]
stamps = {}
for line in open(log, errors="replace"):
    m = re.match(r"\[(\S+)\] .*(submit_batch_job|Allocate|Started):? JobId=" + job + r"\b", line)
    if m:
        kind = "submit" if m.group(2) == "submit_batch_job" else "start"
        stamps.setdefault(kind, datetime.fromisoformat(m.group(1)))
whole_seconds = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"
if "start" not in stamps and all(re.fullmatch(whole_seconds, t) for t in (submit_time, start_time)):
    stamps = {"submit": datetime.fromisoformat(submit_time), "start": datetime.fromisoformat(start_time)}
if len(stamps) == 2:
    print(f"{(stamps['start'] - stamps['submit']).total_seconds():.3f}")
EOF
}

# A regular job of NODES nodes for SECONDS: it must start within max_start_s of its submission,
# by slurmctld's own times (a late start prints the node states it waited through).
regular_starts_in_time() {  # regular_starts_in_time NODES SECONDS: prints the job id
  local t0 job waited polled timeline=$work/node-timeline
  t0=$(now)
  job=$(submit -p regular -N "$1" -t "$((($2 + 59) / 60 + 1))" --wrap "sleep $2")
  : >"$timeline"
  poll 60 "regular job $job RUNNING" running_noting_nodes "$job" "$t0" "$timeline"
  polled=$(seconds_since "$t0")
  waited=$(slurmctld_wait_s "$job")
  [ -n "$waited" ] || fail "slurmctld.log has no submission or start of job $job: $(grep -E "JobId=$job( |$)" "$GAPTRAIN_CLUSTER_DIR/log/slurmctld.log" | head -n 5)"
  note "regular job $job ($1 nodes) started ${waited}s after submission (slurmctld's log; ${polled}s as polled) on $(job_field "$job" NodeList)"
  (($(echo "$waited <= $max_start_s" | bc))) ||
    fail "regular job $job started ${waited}s after submission (> ${max_start_s}s)
node states while it waited (seconds after submission: node=state ...):
$(cat "$timeline")
gaptraind: $(grep -E 'reclaim|drain|action' "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log" | tail -n 8)"
  echo "$job"
}

# The same, on nodes no elastic job holds, while ELASTIC_JOB keeps running on its batch host.
regular_starts_quickly() {  # regular_starts_quickly NODES SECONDS ELASTIC_JOB BATCH_HOST
  local job
  # `|| exit`: this runs in its caller's $(...), where bash turns errexit off.
  job=$(regular_starts_in_time "$1" "$2") || exit 1
  no_node_shared
  job_state_is "$3" RUNNING || fail "elastic job $3 is not running"
  [ "$(job_field "$3" BatchHost)" = "$4" ] || fail "elastic job $3 changed batch host"
  scontrol show hostnames "$(job_field "$3" NodeList)" | matches -x "$4" ||
    fail "elastic job $3 lost its batch host $4: $(job_field "$3" NodeList)"
  echo "$job"
}

# A regular job runs on 6 nodes (its id set in the caller's `blocker`) and an elastic job running
# CMD (default: the idle loop), submitted with SBATCH-ARGS, in the 2 left (its id set in the
# caller's `job`), a step on each.
elastic_beside_blocker() {  # elastic_beside_blocker [CMD [SBATCH-ARGS...]]
  blocker=$(submit -p regular -N 6 -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(submit_elastic "${1:-$idle_loop}" "${@:2}")
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job registered on the 2 idle nodes with a step on each" elastic_at "$job" 2
}

# The same, running CMD, submitted with SBATCH-ARGS, grown into the other 6 nodes as
# satellites once the regular job ends (its id set in the caller's `job`).
elastic_grown_into_satellites() {  # elastic_grown_into_satellites CMD [SBATCH-ARGS...]
  local blocker
  elastic_beside_blocker "$@"
  scancel "$blocker"
  poll 60 "elastic job $job grown to 8 nodes" elastic_at "$job" 8
  no_node_shared
}

satellites_of() { squeue -h -o '%i %j' | awk -v name="gaptrain:$1" '$2 == name {print $1}'; }

# gaptraind killed with SIGKILL (its pid set in the caller's `pid`); returns once it is gone.
kill_gaptraind() {
  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  kill -KILL "$pid"
  poll 30 "gaptraind (pid $pid) gone" bash -c "! kill -0 $pid 2>/dev/null"
}

# gaptraind started again as the cluster first started it; returns once it restored JOB from
# its state file.
restart_gaptraind_restoring() {  # restart_gaptraind_restoring JOB
  "$here/../../scripts/local-cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  poll 60 "the restarted gaptraind restored job $1" \
    grep -qE "msg=\"elastic job restored\" JOB_ID=$1 " "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log"
}

# A regular job of NODES nodes takes them from JOB for SECONDS (starting within 5 s) and gives
# them back: JOB grows back to 8 nodes and was never requeued.
lend_nodes_and_grow_back() {  # lend_nodes_and_grow_back NODES SECONDS JOB BATCH_HOST
  local regular
  regular=$(regular_starts_quickly "$1" "$2" "$3" "$4")
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 90 "elastic job $3 back on 8 nodes" elastic_at "$3" 8
  [ "$(job_field "$3" Restarts)" = 0 ] || fail "elastic job $3 was requeued"
}

# gaptraind's log (LOG) has a line matching PATTERN after its first LINES lines: the log lives
# as long as the cluster, so a line left by an earlier case, or by this case's first try
# (test-slurm-release runs a failed case once more), must not count.
logged_after() {  # logged_after LOG LINES PATTERN
  tail -n +"$(($2 + 1))" "$1" | matches "$3"
}

# gaptraind's configuration with KEYS (JSON members, e.g. '"lease_s": 120') set, reloaded by
# SIGHUP; restore_gaptraind_config (also at the case's exit) puts it back as it was.
reconfigure_gaptraind() {  # reconfigure_gaptraind KEYS
  local config=$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  [ -e "$work/gaptraind.json.orig" ] || cp "$config" "$work/gaptraind.json.orig"
  # In a subshell: a `fail` in it (gaptraind gone with the case) must not end the cleanup.
  cleanup_steps+=("(restore_gaptraind_config)")
  python3 -c 'import json, sys
config = json.load(open(sys.argv[1]))
config.update(json.loads("{" + sys.argv[2] + "}"))
json.dump(config, open(sys.argv[1], "w"))' "$config" "$1"
  reload_gaptraind "$log"
}
restore_gaptraind_config() {
  [ -e "$work/gaptraind.json.orig" ] || return 0
  mv "$work/gaptraind.json.orig" "$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json"
  reload_gaptraind "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log"
}
reload_gaptraind() {  # reload_gaptraind LOG: SIGHUP, and wait until it says it reloaded
  local pid lines
  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  lines=$(wc -l <"$1")
  kill -HUP "$pid"
  poll 30 "gaptraind reloaded" logged_after "$1" "$lines" 'msg="configuration reloaded"'
}

# A sample of gaptraind's Prometheus metrics (GAPTRAIN_METRICS, from the cluster's env.sh):
# its value, 0 when the line is absent.

metric() {  # metric 'NAME{LABELS}'
  python3 - "${GAPTRAIN_METRICS:?the cluster names no GAPTRAIN_METRICS}" "$1" <<'EOF'
import sys
import urllib.request

text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
values = [line.split()[-1] for line in text.splitlines() if line.startswith(sys.argv[2] + " ")]
print(int(float(values[0])) if values else 0)
EOF
}

# The last epoch the script finished ran at world size N.
last_epoch_at() {  # last_epoch_at OUT N
  grep "snapshot saved" "$1" | tail -n 1 | matches "world size $2:"
}

# Every node of the cluster idle: nothing left of an earlier case (a node back from slurmd_dies
# may still be completing, or down a while on 24.11). What is left over, when some is, is said
# in the failure: a case failing on what another left must name that one, not itself.
all_nodes_idle() { ! sinfo -h -N -o '%t' | matches -v '^idle$'; }
wait_for_idle_nodes() {
  local deadline=$((SECONDS + 180))
  until all_nodes_idle; do
    ((SECONDS < deadline)) || fail "nodes not idle 180 s before the case (left by an earlier one?):
$(sinfo -h -N -o '%N %T %E' | sort -u)
jobs: $(squeue -h -o '%i %j %T %N %r' | tr '\n' ';')"
    sleep 0.2
  done
}

# shellcheck source=elastic_resize_cases.sh
source "$here/elastic_resize_cases.sh"
# shellcheck source=elastic_queue_cases.sh
source "$here/elastic_queue_cases.sh"
# shellcheck source=elastic_restart_cases.sh
source "$here/elastic_restart_cases.sh"
# shellcheck source=elastic_slurm_cases.sh
source "$here/elastic_slurm_cases.sh"
# shellcheck source=elastic_torch_cases.sh
source "$here/elastic_torch_cases.sh"
# shellcheck source=elastic_preempt_cases.sh
source "$here/elastic_preempt_cases.sh"
# shellcheck source=elastic_needs_cases.sh
source "$here/elastic_needs_cases.sh"
# shellcheck source=elastic_fault_cases.sh
source "$here/elastic_fault_cases.sh"
# shellcheck source=elastic_home_cases.sh
source "$here/elastic_home_cases.sh"

wait_for_idle_nodes
"case_$case_name"
