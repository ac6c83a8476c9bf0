# gaptraind's queue: held jobs admitted, their dependencies, pause and drain, the queue's order,
# caps and priority, and the state file that keeps the queue across a restart.
# Sourced by run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work, here and the cluster's variables are run_elastic_case.sh's

# A held elastic job (sbatch --hold) waits for gaptraind: it is admitted onto the nodes the
# allocator picks with a lease as its time limit, starts there, and is managed like any other.
case_admit_held() {
  local blocker job limit
  blocker=$(submit -p regular -N 5 -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(submit --hold -p elastic -N 1-8 --elastic=1-8 --elastic-cost=1:1 -t 60 \
    --wrap "exec $launch --poll-ms 250 -- $idle_loop")
  poll 60 "held elastic job $job admitted and RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job registered on the 3 idle nodes" elastic_at "$job" 3
  no_node_shared
  limit=$(job_field "$job" TimeLimit)
  [ "$limit" != "01:00:00" ] || fail "job $job kept its 60-minute limit: no lease"
  grep -qE "msg=\"action done\" ACTION=admit JOB_ID=$job " "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log" ||
    fail "gaptraind did not log the admission of job $job"
  note "held job $job admitted on $(job_field "$job" NodeList) with TimeLimit $limit"
}

# gaptraind's reason why held job JOB is not admitted contains TEXT.
held_reason_has() {  # held_reason_has JOB TEXT
  query_status "[q['reason'] for q in s.get('queue', []) if q['job_id'] == $1]" | matches -F "$2"
}

# A held elastic job whose dependency is unmet is not admitted, and `gaptrain status`
# says why; once its dependency completes, it is.
case_queue_dependency() {
  local first held go=$work/go
  first=$(submit -p regular -N 1 -t 5 --wrap "until [ -e $go ]; do sleep 1; done")
  poll 60 "regular job $first RUNNING" job_state_is "$first" RUNNING
  held=$(submit --hold -p elastic -N 1-2 --elastic=1-2 --elastic-cost=1:1 -t 60 \
    --dependency="afterok:$first" --wrap "exec $launch --poll-ms 250 -- $idle_loop")
  poll 60 "held job $held waits for its dependency" held_reason_has "$held" "dependency not met"
  job_state_is "$held" PENDING || fail "job $held left PENDING before its dependency was met"
  touch "$go"
  poll 60 "regular job $first COMPLETED" job_state_is "$first" COMPLETED
  note "job $held: Dependency=$(job_field "$held" Dependency) Reason=$(job_field "$held" Reason) queue: $(query_status "s.get('queue')")"
  poll 60 "job $held admitted once job $first completed" job_state_is "$held" RUNNING
  scancel "$held"
}

# `gaptrain drain` gives back every satellite (the job keeps its own nodes) and admits
# nothing, and says so in `gaptrain status`; `gaptrain resume` admits again.
test_no_satellites() { [ -z "$(satellites_of "$1")" ]; }  # test_no_satellites JOB

case_pause_drain() {
  local blocker job held
  elastic_grown_into_satellites "$idle_loop"
  "$GAPTRAIN_CLI" drain >/dev/null || fail "gaptrain drain was refused"
  # Also when the case fails: a gaptraind left draining grows no job of the cases after it.
  cleanup_steps+=("'$GAPTRAIN_CLI' resume >/dev/null")
  poll 60 "elastic job $job back on its own 2 nodes" elastic_at "$job" 2
  # Slurm lists a satellite until its end is complete (26.05: a moment after gaptraind shrank).
  poll 30 "no satellite of job $job left" test_no_satellites "$job"
  [ "$(query_status "s['operation']")" = draining ] || fail "status does not say draining"
  held=$(submit --hold -p elastic -N 1-2 --elastic=1-2 --elastic-cost=1:1 -t 60 \
    --wrap "exec $launch --poll-ms 250 -- $idle_loop")
  poll 60 "held job $held waits: gaptraind drains" held_reason_has "$held" "gaptraind is draining"
  "$GAPTRAIN_CLI" resume >/dev/null || fail "gaptrain resume was refused"
  poll 60 "held job $held admitted after resume" job_state_is "$held" RUNNING
  scancel "$held" "$job"
}

# Held elastic jobs are admitted first come, first served (a --hold job's priority in
# Slurm is 0, so FCFS is the order among them), and max_running_per_user holds a user's second
# job back while the first runs: both submitted while gaptraind is paused, then resumed with
# room for both, the older one runs and the newer one waits for the cap, `gaptrain status`
# saying so, until the older one ends.
case_queue_order_and_cap() {
  local older newer
  reconfigure_gaptraind '"max_running_per_user": 1'
  "$GAPTRAIN_CLI" pause >/dev/null || fail "gaptrain pause was refused"
  cleanup_steps+=("'$GAPTRAIN_CLI' resume >/dev/null")
  older=$(submit --hold -p elastic -N 1-2 --elastic=1-2 --elastic-cost=1:1 -t 60 \
    --wrap "exec $launch --poll-ms 250 -- $idle_loop")
  newer=$(submit --hold -p elastic -N 1-2 --elastic=1-2 --elastic-cost=1:1 -t 60 \
    --wrap "exec $launch --poll-ms 250 -- $idle_loop")
  poll 60 "held job $newer waits: gaptraind is paused" held_reason_has "$newer" "gaptraind is paused"
  "$GAPTRAIN_CLI" resume >/dev/null || fail "gaptrain resume was refused"
  poll 60 "the older held job $older admitted first" job_state_is "$older" RUNNING
  poll 60 "held job $newer waits for the per-user cap" \
    held_reason_has "$newer" "runs max_running_per_user elastic jobs"
  job_state_is "$newer" PENDING ||
    fail "job $newer left PENDING while the same user's job $older runs (max_running_per_user 1)"
  # Its user asks what happened to it: it waits, and why (not "no such job").
  "$GAPTRAIN_CLI" job "$newer" | matches "waits for gaptraind to admit it: .*max_running_per_user" ||
    fail "gaptrain job $newer says: $("$GAPTRAIN_CLI" job "$newer" 2>&1)"
  note "job $newer: $(query_status "[q['reason'] for q in s.get('queue', []) if q['job_id'] == $newer]")"
  scancel "$older"
  poll 60 "job $newer admitted once job $older ended" job_state_is "$newer" RUNNING
  scancel "$newer"
}

# Jobs parked by `gaptrain submit` (a begin time a year ahead instead of --hold) keep
# the priority Slurm computes for them, and gaptraind admits them in that order: both submitted
# while gaptraind is paused, the older with --nice=500 (a lower priority), then resumed with
# room for one job of the user (max_running_per_user 1): the newer one runs first, the older
# waits, parked (Slurm does not start it either), until the newer one ends.
# gaptraind manages JOB, registered for MIN-MAX nodes.
registered_for() {  # registered_for JOB MIN MAX
  [ "$(query_status "(job($1)['min_nodes'], job($1)['max_nodes']) if job($1) else None")" = "($2, $3)" ]
}

case_queue_priority() {
  local older newer older_priority newer_priority
  reconfigure_gaptraind '"max_running_per_user": 1'
  "$GAPTRAIN_CLI" pause >/dev/null || fail "gaptrain pause was refused"
  cleanup_steps+=("'$GAPTRAIN_CLI' resume >/dev/null")
  older=$(gaptrain_submit -N 1-2 --cost 1:1 --nice=500 -- bash -c 'while true; do sleep 1; done')
  newer=$(gaptrain_submit -N 1-2 --cost 1:1 -- bash -c 'while true; do sleep 1; done')
  poll 60 "parked job $newer waits: gaptraind is paused" held_reason_has "$newer" "gaptraind is paused"
  held_reason_has "$older" "gaptraind is paused" || fail "job $older is not in gaptraind's queue"
  for job in "$older" "$newer"; do
    { job_field_is "$job" Reason BeginTime && job_field_is "$job" JobState PENDING; } ||
      fail "job $job is not parked: $(job_line "$job" | grep -oE '(JobState|Reason|Priority|EligibleTime)=[^ ]*' | tr '\n' ' ')"
  done
  older_priority=$(job_field "$older" Priority)
  newer_priority=$(job_field "$newer" Priority)
  note "parked: older job $older Priority=$older_priority (nice 500), newer job $newer" \
    "Priority=$newer_priority; EligibleTime $(job_field "$newer" EligibleTime)"
  ((older_priority > 0 && newer_priority > older_priority)) ||
    fail "Slurm's priorities are not as the case needs: $older_priority (older), $newer_priority (newer)"
  "$GAPTRAIN_CLI" resume >/dev/null || fail "gaptrain resume was refused"
  poll 60 "the newer job $newer, of higher priority, admitted first" job_state_is "$newer" RUNNING
  # Managed once started: its launcher registers it within the range it was submitted with (a
  # parked job's node count in Slurm is Slurm's guess, 2 of 1-2 here: read as its minimum, it
  # made the registration for 1-2 "go beyond" the submission and the job ran unmanaged).
  poll 60 "job $newer registered with gaptraind for 1-2 nodes" registered_for "$newer" 1 2
  poll 60 "parked job $older waits for the per-user cap" \
    held_reason_has "$older" "runs max_running_per_user elastic jobs"
  { job_field_is "$older" JobState PENDING && job_field_is "$older" Reason BeginTime; } ||
    fail "job $older left its parking while the same user's job $newer runs: $(job_field "$older" JobState) $(job_field "$older" Reason)"
  grep -qE "msg=\"action done\" ACTION=admit JOB_ID=$newer " "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log" ||
    fail "gaptraind did not log the admission of job $newer"
  note "job $older: $(query_status "[q['reason'] for q in s.get('queue', []) if q['job_id'] == $older]")"
  scancel "$newer"
  poll 60 "job $older admitted once job $newer ended" job_state_is "$older" RUNNING
  scancel "$older"
}

# The user limit gaptraind holds for JOB in its state file ("none" while it holds none).
state_user_limit() {  # state_user_limit JOB
  python3 -c '
import json, sys
try:
    with open(sys.argv[1]) as f:
        print(json.load(f).get("user_limits", {}).get(sys.argv[2], "none"))
except (OSError, ValueError):
    print("none")' "$GAPTRAIN_CLUSTER_DIR/run/gaptraind-state.json" "$1"
}
state_user_limit_known() { [ "$(state_user_limit "$1")" != none ]; }

# The hostile-user probe: gaptraind stopped, its state file overwritten, started again. It starts
# without the file, the launcher registers the job again, and the time limit the job was
# submitted with (none here: MaxTime=INFINITE, no --time) comes back from the job's own record
# (AdminComment, job_mark.hpp), not from the lease Slurm now shows: before, it became the lease
# and the job ended TIMEOUT there.
case_state_file_lost() {
  local blocker job before after state=$GAPTRAIN_CLUSTER_DIR/run/gaptraind-state.json lines
  local log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  blocker=$(submit -p regular -N 5 -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(submit --hold -p elastic -N 1-8 --elastic=1-8 --elastic-cost=1:1 \
    --wrap "exec $launch --poll-ms 250 -- $idle_loop")
  poll 60 "held elastic job $job admitted and RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job registered on the 3 idle nodes" elastic_at "$job" 3
  job_line "$job" | matches 'AdminComment=gaptrain:limit=0,nodes=1-8' ||
    fail "job $job's record has no mark: $(job_line "$job" | grep -o 'AdminComment=[^ ]*')"
  poll 60 "the state file to hold job $job's own limit" state_user_limit_known "$job"
  before=$(state_user_limit "$job")
  [ "$before" = 0 ] || fail "job $job's own limit is $before minutes, not none (0)"

  kill_gaptraind
  head -c 4096 /dev/urandom >"$state"
  lines=$(wc -l <"$log")
  "$here/../../scripts/local-cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  poll 60 "the restarted gaptraind to start without the state file" \
    logged_after "$log" "$lines" 'state file unreadable'
  poll 90 "elastic job $job registered again on its 3 nodes" elastic_at "$job" 3
  poll 60 "the state file to hold job $job's limit again" state_user_limit_known "$job"
  after=$(state_user_limit "$job")
  note "job $job's own limit: $before before the state file was lost, $after after;" \
    "its TimeLimit (the lease) $(job_field "$job" TimeLimit)"
  [ "$after" = "$before" ] ||
    fail "job $job's own limit became $after minutes (the lease) instead of $before"
}
