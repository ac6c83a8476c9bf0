# Restarts and faults under a running elastic job: a step that ignores SIGTERM, gaptraind
# restarted (idle, mid-shrink, mid-grow), the launcher, slurmctld and one slurmd dying, flat progress.
# Sourced by run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work, here and the cluster's variables are run_elastic_case.sh's

# A training that ignores SIGTERM (the drain request) does not keep a regular job waiting:
# after the reclaim grace its satellites' tasks are killed at once, not after slurmd's KillWait
# (30 s, Slurm's default): the regular job's bound here is 15 s, loose enough for a loaded machine
# (5.1 s was seen against the 5 s of the other cases) and still far below grace + KillWait.
case_stubborn_step() {
  # shellcheck disable=SC2034 # read by regular_starts_in_time (bash scopes locals dynamically)
  local blocker job batch_host regular max_start_s=15
  elastic_beside_blocker "bash -c 'trap \"\" TERM; while true; do sleep 1; done'"
  batch_host=$(job_field "$job" BatchHost)
  scancel "$blocker"
  poll 60 "elastic job $job grown to 8 nodes (6 satellites)" elastic_at "$job" 8
  regular=$(regular_starts_quickly 4 3 "$job" "$batch_host")
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 60 "elastic job $job grown back to 8 nodes" elastic_at "$job" 8
}

# gaptraind killed with SIGKILL while it manages an elastic job, then started again: it reads
# the job's registration back from its state file (the plugin registers a job once), manages
# it as before (grows it when a regular job ends, gives nodes back at once to a regular job
# that needs them) and the job was never disturbed.
case_restart() {
  local blocker job batch_host pid
  elastic_beside_blocker
  batch_host=$(job_field "$job" BatchHost)
  [ -s "$GAPTRAIN_CLUSTER_DIR/run/gaptraind-state.json" ] || fail "gaptraind wrote no state file"

  kill_gaptraind
  note "gaptraind (pid $pid) killed with SIGKILL"
  restart_gaptraind_restoring "$job"
  poll 60 "elastic job $job managed again on its 2 nodes" elastic_at "$job" 2

  scancel "$blocker"
  poll 60 "elastic job $job grown to 8 nodes after the restart" elastic_at "$job" 8
  no_node_shared
  lend_nodes_and_grow_back 4 3 "$job" "$batch_host"
}

# gaptraind killed with SIGKILL in the middle of a reclaim's shrink: the regular job waits for
# nodes the elastic job is draining (its launcher is stopped, so no ack comes and the drain
# waits for its grace), gaptraind dies, starts again, and carries the reclaim out from Slurm's
# view: the regular job starts, the elastic job keeps its batch host, no node is held twice and
# no satellite is left behind.
case_restart_mid_shrink() {
  local job batch_host pid regular log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  job=$(elastic_on_all_nodes)
  batch_host=$(job_field "$job" BatchHost)
  # A long reclaim grace and a launcher that cannot ack: the drain lasts, gaptraind dies in it.
  reconfigure_gaptraind '"reclaim_grace_s": 20.0'
  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  scancel --batch --signal=STOP "$job"
  cleanup_steps+=("scancel --batch --signal=CONT $job")

  regular=$(submit -p regular -N 3 -t 2 --wrap 'sleep 5')
  poll 30 "a drain of job $job requested for regular job $regular" \
    grep -qE "msg=\"drain requested\" ACTION=shrink JOB_ID=$job .*regular job $regular " "$log"
  kill -KILL "$pid"
  poll 30 "gaptraind (pid $pid) gone" bash -c "! kill -0 $pid 2>/dev/null"
  grep -qE "msg=\"action done\" ACTION=shrink JOB_ID=$job " "$log" &&
    fail "the shrink completed before gaptraind was killed: not a mid-shrink restart"
  note "gaptraind killed with SIGKILL while job $job drained nodes for regular job $regular"
  "$here/../../scripts/local-cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  poll 60 "regular job $regular RUNNING after the restart" job_state_is "$regular" RUNNING
  no_node_shared
  # The launcher goes on. (Slurm shows the job RESIZING while the shrink of its own nodes -
  # Slurm started it on 8 - is not acknowledged by its stopped batch step.)
  scancel --batch --signal=CONT "$job"
  poll 30 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  scontrol show hostnames "$(job_field "$job" NodeList)" | matches -x "$batch_host" ||
    fail "elastic job $job lost its batch host $batch_host"
  restore_gaptraind_config
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 90 "elastic job $job back on 8 nodes" elastic_at "$job" 8
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
}

# gaptraind killed with SIGKILL in the middle of a grow: the grow had made one of its satellite
# allocations (made here by hand, as gaptraind does, while gaptraind is dead: a grow takes a few
# ms, too short to kill it in reliably) and recorded nothing. After the restart that satellite
# is the job's (a step of it runs there), the job grows into the other free nodes, no node is
# held by two jobs or by a satellite nobody uses, and regular jobs still get their nodes.
case_restart_mid_grow() {
  local blocker job batch_host pid node satellite
  elastic_beside_blocker
  batch_host=$(job_field "$job" BatchHost)

  kill_gaptraind
  scancel "$blocker"
  poll 60 "regular job $blocker ended" job_ended "$blocker"
  poll 60 "its nodes idle" bash -c "[ \$(sinfo -h -N -p elastic -t idle -o %N | wc -l) -ge 6 ]"
  node=$(sinfo -h -N -p elastic -t idle -o %N | sort -V | head -n 1)
  salloc --no-shell -J "gaptrain:$job" -p elastic -N 1 -w "$node" -t 5 --immediate=10 \
    >"$work/salloc.log" 2>&1 || fail "salloc of a satellite on $node failed: $(cat "$work/salloc.log")"
  satellite=$(squeue -h -n "gaptrain:$job" -o %i)
  [ -n "$satellite" ] || fail "no satellite allocation of job $job on $node"
  note "gaptraind killed; a grow's first satellite ($satellite on $node) made, nothing recorded"

  restart_gaptraind_restoring "$job"
  poll 60 "a step of job $job running in satellite $satellite on $node" step_runs_on "$job" "$node"
  poll 90 "elastic job $job grown to 8 nodes" elastic_at "$job" 8
  no_node_shared
  [ "$(squeue -h -n "gaptrain:$job" -o %i | wc -l)" = 6 ] ||
    fail "job $job should hold its 6 other nodes through 6 satellites: $(squeue -h -o '%i %j %N' | tr '\n' ';')"
  squeue -h -n "gaptrain:$job" -o %i | matches -x "$satellite" ||
    fail "the satellite $satellite made before the restart is gone"
  lend_nodes_and_grow_back 4 3 "$job" "$batch_host"
}

# The launcher (the elastic job's batch script) dies: Slurm ends the job, gaptraind releases its
# satellites, and every node is free again for the regular workload.
case_launcher_dies() {
  local job regular
  job=$(elastic_on_all_nodes)
  scancel --batch --signal=KILL "$job"
  poll 60 "elastic job $job ended" job_ended "$job"
  poll 60 "no satellite of job $job left" bash -c "! squeue -h -o %j | grep -qx 'gaptrain:$job'"
  regular=$(submit -p regular -N 8 -t 2 --wrap 'sleep 1')
  poll 60 "an 8-node regular job $regular RUNNING" job_state_is "$regular" RUNNING
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  note "job $job's launcher killed: the job ended, its satellites were released, 8 nodes free"
}

# gaptrain status shows TEXT. Its long timeout: gaptraind's Slurm calls run on its event loop,
# and while slurmctld is down each poll blocks for libslurm's retries (MessageTimeout).
status_says() { "$GAPTRAIN_CLI" status --timeout 60 | matches "$1"; }  # status_says TEXT

every_node_known() {  # no node UNKNOWN or not responding (sinfo's `unk`, a `*` suffix)
  ! sinfo -h -N -o %t | matches -E '^unk|\*$'
}

# JOB has its record in Slurm's accounting (slurmdbd gave it its db_index).
job_in_accounting() {  # job_in_accounting JOB
  [ -n "$(sacct -n -X -j "$1" -o JobID 2>/dev/null)" ]
}

# slurmctld stops (SIGTERM, as for an upgrade) under an elastic job on 8 nodes and starts again
# on its saved state: gaptraind rides it out (its polls fail, `gaptrain status` says so, it
# retries and does not exit), the job is all there and managed again, and a regular job that
# needs its nodes starts within 5 s.
case_slurmctld_restart() {
  local job batch_host pid log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log lines
  local cluster=("$here/../../scripts/local-cluster")
  job=$(elastic_on_all_nodes)
  batch_host=$(job_field "$job" BatchHost)
  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  # Slurm refuses every update of a job whose accounting record is not written yet ("the DB
  # index is being set"), and a slurmctld restarted before it was took more than 60 s to write it
  # in one CI run under load (every shrink refused, the regular job waiting): the case restarts
  # a slurmctld whose job is recorded, as an upgrade in production would find it.
  poll 60 "elastic job $job recorded in accounting" job_in_accounting "$job"

  cleanup_steps+=("'${cluster[0]}' start-slurmctld --dir '$GAPTRAIN_CLUSTER_DIR' 2>/dev/null")
  lines=$(wc -l <"$log")
  "${cluster[@]}" stop-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>/dev/null
  note "slurmctld stopped"
  poll 60 "gaptraind seeing slurmctld gone" logged_after "$log" "$lines" 'msg="cannot poll Slurm"'
  poll 120 "gaptrain status saying Slurm does not answer" status_says "Slurm does not answer"
  "${cluster[@]}" start-slurmctld --dir "$GAPTRAIN_CLUSTER_DIR" 2>"$work/start.log" ||
    fail "slurmctld did not start again: $(tail -n 5 "$work/start.log")"
  note "slurmctld started again"
  poll 60 "gaptraind polling Slurm again" logged_after "$log" "$lines" 'msg="polling Slurm again"'
  kill -0 "$pid" 2>/dev/null || fail "gaptraind (pid $pid) exited while slurmctld was down"
  [ "$(query_status "s['slurm_error']")" = None ] || fail "gaptrain status still shows a Slurm error"
  job_state_is "$job" RUNNING || fail "elastic job $job is not running after the restart"
  poll 60 "elastic job $job managed on its 8 nodes after the restart" elastic_at "$job" 8
  # A restarted slurmctld knows no node's state until its slurmd registers again (24.11 took
  # up to 4 s): a regular job submitted before that waits for Slurm, with or without gaptrain,
  # so the 5 s bound is measured from a slurmctld that knows its nodes.
  poll 120 "every node known to slurmctld again" every_node_known
  no_node_shared
  lend_nodes_and_grow_back 5 3 "$job" "$batch_host"
}

# The slurmd of one of an elastic job's nodes (not its batch host) dies (SIGKILL). Slurm marks
# the node down once it stops answering (SlurmdTimeout) and, the job being submitted with
# --no-kill, takes the node out of it; gaptraind drops the node from the job, which trains on
# with the rest and keeps its batch host; regular jobs still get nodes within 5 s; when slurmd is
# back the job grows onto the node again.
case_slurmd_dies() {
  local job batch_host victim regular log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  local cluster=("$here/../../scripts/local-cluster")
  # --no-kill: Slurm takes a failed node out of the job instead of requeueing the whole job.
  job=$(elastic_on_all_nodes --no-kill)
  batch_host=$(job_field "$job" BatchHost)
  victim=$(query_status "[n for n in job($job)['nodes'] if n != '$batch_host'][-1]")
  cleanup_steps+=("'${cluster[0]}' start-slurmd --dir '$GAPTRAIN_CLUSTER_DIR' --node $victim 2>/dev/null")

  "${cluster[@]}" kill-slurmd --dir "$GAPTRAIN_CLUSTER_DIR" --node "$victim" 2>/dev/null
  note "the slurmd of $victim (a satellite node of job $job) killed with SIGKILL"
  # SlurmdTimeout is 30 s in the local cluster: Slurm needs up to a minute or two to notice.
  poll 180 "node $victim down in Slurm" bash -c "sinfo -h -n $victim -o %t | grep -q down"
  poll 60 "elastic job $job on the 7 live nodes" elastic_at "$job" 7
  scontrol show hostnames "$(job_field "$job" NodeList)" | matches -x "$batch_host" ||
    fail "elastic job $job lost its batch host $batch_host"
  query_status "job($job)['nodes']" | matches -x "$victim" &&
    fail "gaptraind still counts the dead node $victim in job $job"
  no_node_shared
  regular=$(regular_starts_quickly 4 3 "$job" "$batch_host")
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  scontrol show hostnames "$(job_field "$regular" NodeList)" | matches -x "$victim" &&
    fail "regular job $regular ran on the dead node $victim"

  "${cluster[@]}" start-slurmd --dir "$GAPTRAIN_CLUSTER_DIR" --node "$victim" 2>/dev/null
  poll 120 "node $victim back in service" bash -c "sinfo -h -n $victim -o %t | grep -qv down"
  poll 120 "elastic job $job grown back to 8 nodes" elastic_at "$job" 8
  no_node_shared
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
  note "gaptraind: $(grep -cE "JOB_ID=$job .*$victim|$victim.*JOB_ID=$job" "$log") log lines name job $job and $victim"
}

# A job registered without a curve whose progress file shows no new samples (the PyTorch
# example writes progress only at checkpoints) once got a learned 1-node rate of 0, on which the
# speedup objective threw out of the poll timer: gaptraind exited, and its state file brought
# the job back to do it again. Now no progress is "not learned yet": after a flat window of
# gaptraind's 10 s, gaptraind still runs (the same process), the curve is still assumed, and
# the job is still managed: it grows when the regular job beside it ends.
case_flat_progress() {
  local blocker job pid progress=$work/progress.jsonl
  echo '{"samples_done": 1000}' >"$progress"
  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  blocker=$(submit -p regular -N 6 -t 5 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  # No --elastic-curve (the curve stays assumed: the case), but cheap rescales: with the default
  # 30 s costs, a node freed a poll after its five siblings was not worth a second rescale to
  # the allocator (7 -> 8 nodes on the assumed curve), and the case waited for 8 in vain (24.11
  # in CI, twice: gaptraind grew the job onto the five, then left the sixth idle).
  job=$(submit -p elastic -N 1-8 --elastic=1-8 --elastic-cost=1:1 -t 30 \
    --wrap "exec $launch --poll-ms 250 --grace-s 5 --progress-file $progress -- $idle_loop")
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 60 "elastic job $job registered on the 2 idle nodes with a step on each" elastic_at "$job" 2
  poll 60 "job $job's progress reported" \
    test "$(query_status "job($job)['samples_done'] if job($job) else None")" = 1000.0
  # Steady on 2 nodes with flat progress for longer than a learning window (not a timing
  # assertion: the window must have passed for the case to test anything).
  sleep 15
  kill -0 "$pid" 2>/dev/null ||
    fail "gaptraind (pid $pid) exited on flat progress: $(tail -n 5 "$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log")"
  curve_source_is "$job" assumed ||
    fail "job $job's curve is $(query_status "job($job)['curve']")), not the assumed one"
  scancel "$blocker"
  poll 90 "elastic job $job grown to 8 nodes with flat progress" elastic_at "$job" 8
  read -r after _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  [ "$after" = "$pid" ] || fail "gaptraind was restarted (pid $pid, now $after)"
  no_node_shared
}
