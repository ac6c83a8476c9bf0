# shellcheck shell=bash disable=SC2154 # work, here and the helpers: run_elastic_case.sh
# run_elastic_case.sh's cases for regular jobs that can start on some nodes only
# (controller/core/node_needs.hpp): pinned to a node (-w), asking a feature (--constraint), whole
# nodes (--exclusive), in a reservation, or a count only. Sourced by run_elastic_case.sh, whose
# helpers they use. Each regular job must start, and the elastic job must give it exactly the
# node it needs: shrunk (a satellite), or requeued held and admitted again (its batch host),
# ending COMPLETED, never TIMEOUT.

# The v100 half of the cluster (n5..n8) goes into a reservation of root's: no hole for elastic
# work, and no node for a regular job outside the reservation. The elastic job then holds the
# a100 half (n1..n4), batch host n4 and satellites n1..n3, while idle nodes stand beside it that
# a regular job pinned to one of its nodes or asking for a100 cannot use. (Before, those idle
# nodes counted as serving such a job: nothing was reclaimed and the job waited for a lease.)
# Sets the caller's `job` (running until $work/finish exists) and `batch_host`.
elastic_beside_reserved_half() {
  local blocker
  scontrol create reservation ReservationName=gt_v100 Nodes='n[5-8]' StartTime=now Duration=30 \
    Users=root Flags=IGNORE_JOBS >/dev/null || fail "cannot reserve n[5-8]"
  cleanup_steps+=("scontrol delete ReservationName=gt_v100")
  blocker=$(submit -p regular -N 3 -w 'n[1-3]' -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(submit_elastic "bash -c 'until [ -e $work/finish ]; do sleep 1; done'")
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job registered on n4" elastic_at "$job" 1
  batch_host=$(job_field "$job" BatchHost)
  scancel "$blocker"
  poll 90 "elastic job $job grown into n1..n3" elastic_at "$job" 4
}

# A regular job (SBATCH-ARGS, 3 s) starts, the elastic job still runs on its batch host and
# was not requeued; then it ends and the elastic job grows back to COUNT nodes.
shrinks_for() {  # shrinks_for COUNT SBATCH-ARGS...
  local count=$1 regular
  shift
  regular=$(submit -p regular -t 1 "$@" --wrap 'sleep 3')
  poll 60 "regular job $regular ($*) RUNNING" job_state_is "$regular" RUNNING
  no_node_shared
  note "regular job $regular ($*) started on $(job_field "$regular" NodeList)"
  job_state_is "$job" RUNNING || fail "elastic job $job is not running"
  [ "$(job_field "$job" BatchHost)" = "$batch_host" ] || fail "elastic job $job lost its batch host"
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued for ($*)"
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 90 "elastic job $job back on $count nodes" elastic_at "$job" "$count"
}

# The elastic job ends as its work does (COMPLETED, not TIMEOUT at a lease), and no satellite
# of it is left behind.
completes_cleanly() {
  touch "$work/finish"
  poll 120 "elastic job $job COMPLETED" job_state_is "$job" COMPLETED
  poll 60 "no satellite of job $job left" bash -c "[ -z \"\$(squeue -h -n gaptrain:$job -o %i)\" ]"
}

# Pinned (-w) to a satellite: that satellite goes, the job keeps running. Pinned to the batch
# host (the probe: it used to drain a satellite instead, grow onto it again and again, and let
# the job end TIMEOUT at its lease): the job is requeued held, the regular job starts there,
# and the job is admitted again elsewhere and completes.
case_pinned_reclaim() {
  local job batch_host satellite_node regular log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  elastic_beside_reserved_half
  satellite_node=$(squeue -h -j "$(satellites_of "$job" | sort -n | tail -n 1)" -o %N)
  shrinks_for 4 -w "$satellite_node"

  regular=$(submit -p regular -t 1 -w "$batch_host" --wrap 'sleep 3')
  poll 60 "regular job $regular (-w $batch_host, job $job's batch host) RUNNING" \
    job_state_is "$regular" RUNNING
  [ "$(job_field "$regular" NodeList)" = "$batch_host" ] || fail "regular job $regular not on $batch_host"
  grep -qE "msg=\"action done\" ACTION=requeue JOB_ID=$job " "$log" ||
    fail "job $job was not requeued: $(grep "JOB_ID=$job " "$log" | tail -n 5)"
  poll 120 "elastic job $job admitted again" job_state_is "$job" RUNNING
  [ "$(job_field "$job" Restarts)" = 1 ] || fail "elastic job $job: Restarts=$(job_field "$job" Restarts)"
  note "job $job requeued for regular job $regular and admitted again on $(job_field "$job" NodeList)"
  no_node_shared
  completes_cleanly
}

# A feature only the elastic job's nodes have (--constraint=a100), whole nodes (--exclusive),
# a count only (-N 2), and a reservation made on one of its satellites (--reservation): each
# takes the satellites it can start on, the job keeps running and completes.
case_constrained_reclaim() {
  local job batch_host satellite_node regular
  elastic_beside_reserved_half
  shrinks_for 4 --constraint=a100
  shrinks_for 4 --exclusive
  shrinks_for 4 -N 2
  satellite_node=$(squeue -h -j "$(satellites_of "$job" | sort -n | head -n 1)" -o %N)
  scontrol create reservation ReservationName=gt_pin Nodes="$satellite_node" StartTime=now \
    Duration=5 Users=root Flags=IGNORE_JOBS >/dev/null || fail "cannot reserve $satellite_node"
  cleanup_steps+=("scontrol delete ReservationName=gt_pin 2>/dev/null")
  # The reserved node is no hole: the job grows back to 3.
  shrinks_for 3 --reservation=gt_pin
  completes_cleanly
}

# The fault case: gaptraind stopped while it requeues a job for a regular job pinned to its
# batch host (the launcher is stopped, so no ack ends the drain early), started again: it
# carries the reclaim out from Slurm's view, the regular job starts, the elastic job is
# admitted again and completes, and no satellite is left behind.
case_fault_pinned_reclaim_controller_stopped() {
  local job batch_host regular log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log lines
  local cluster=$here/../../scripts/local-cluster
  elastic_beside_reserved_half
  reconfigure_gaptraind '"reclaim_grace_s": 20.0'
  scancel --batch --signal=STOP "$job"
  cleanup_steps+=("scancel --batch --signal=CONT $job 2>/dev/null")
  # Started again also when the case fails while it is stopped: the next case needs it.
  cleanup_steps+=("'$cluster' start-controller --dir '$GAPTRAIN_CLUSTER_DIR' >/dev/null")
  lines=$(wc -l <"$log")
  regular=$(submit -p regular -t 1 -w "$batch_host" --wrap 'sleep 3')
  poll 30 "a requeue of job $job requested for regular job $regular" logged_after "$log" "$lines" \
    "msg=\"drain requested\" ACTION=requeue JOB_ID=$job .*regular job $regular "
  "$cluster" stop-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  ! logged_after "$log" "$lines" "msg=\"action done\" ACTION=requeue JOB_ID=$job " ||
    fail "the requeue completed before gaptraind stopped: not a stop during the reclaim"
  note "gaptraind stopped while job $job drained for regular job $regular (-w $batch_host)"
  scancel --batch --signal=CONT "$job"
  "$cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  poll 60 "regular job $regular RUNNING after the restart" job_state_is "$regular" RUNNING
  no_node_shared
  restore_gaptraind_config
  poll 120 "elastic job $job admitted again" job_state_is "$job" RUNNING
  [ "$(job_field "$job" Restarts)" = 1 ] || fail "elastic job $job: Restarts=$(job_field "$job" Restarts)"
  completes_cleanly
}
