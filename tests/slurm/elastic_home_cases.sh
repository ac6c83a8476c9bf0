# The home mode (docs/admin.md, "A home for batch scripts"): elastic jobs' batch scripts on the
# home node home1, every training node a satellite in a QOS the regular QOS preempts. Sourced by
# run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # work, here and jobs_file are run_elastic_case.sh's

# The cluster in the home mode until the case ends: preemption by QOS (satellite, GraceTime
# GRACE s), gaptraind's home_partition and satellite_qos; undone by preempt_satellites_restore.
home_mode_setup() {  # home_mode_setup LOG GRACE
  local json=$GAPTRAIN_CLUSTER_DIR/etc/gaptraind.json
  reconfigure_for_preemption
  sacctmgr -i add qos satellite >/dev/null
  sacctmgr -i modify qos satellite set GraceTime="$2" >/dev/null
  sacctmgr -i modify qos normal set preempt=satellite >/dev/null
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["satellite_qos"] = "satellite"; c["home_partition"] = "home"; json.dump(c, open(sys.argv[1], "w"))' "$json"
  restart_slurmctld
  restart_gaptraind "$1"
}

at_home() {  # at_home JOB: running, its batch script on home1
  job_state_is "$1" RUNNING && job_field_is "$1" Partition home && job_field_is "$1" BatchHost home1
}
paused() { at_home "$1" && [ -z "$(satellites_of "$1")" ]; }  # paused JOB
on_all_eight() { [ $(($(satellites_of "$1" | wc -l) + $(satellites_of "$2" | wc -l))) -eq 8 ]; }
started() { [ "$(job_field "$1" StartTime)" != Unknown ] && ! job_state_is "$1" PENDING; }

# Seconds from JOB's submission (or the end of job AFTER, when later: it needed that job's
# node) to its start, as slurmctld recorded them.
start_delay() {  # start_delay JOB [AFTER]
  local ready start end
  ready=$(date -d "$(job_field "$1" SubmitTime)" +%s)
  if [ -n "${2:-}" ]; then
    end=$(date -d "$(job_field "$2" EndTime)" +%s)
    ((end <= ready)) || ready=$end
  fi
  start=$(date -d "$(job_field "$1" StartTime)" +%s)
  echo $((start - ready))
}

# A regular job NODES nodes wide (sbatch ARGS...) that must start while gaptraind is stopped;
# prints its id once it runs.
regular_starts_alone() {  # regular_starts_alone ARGS...
  local id
  id=$(submit -o /dev/null "$@") || fail "sbatch $* failed"
  poll 90 "regular job $id ($*) RUNNING with gaptraind stopped" started "$id"
  echo "$id"
}

# gaptraind stopped for 3 minutes while regular jobs arrive over every training node of two
# elastic jobs at home: a regular job pinned (-w) to one of their nodes, then one over all eight.
# Each starts without gaptraind (Slurm preempts the satellites), as it starts on an empty cluster
# (its delay there is measured first and noted beside); the elastic jobs are paused, never
# requeued, and resume when gaptraind returns and the nodes are free again; each completes with
# every sample trained once an epoch.
case_home_zero_impact() {
  local example=${EXAMPLE_DIR:?EXAMPLE_DIR is not set} log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  local epochs=40 a b baseline pinned wide pid stopped_at node job progress
  torch_or_skip "torch, sklearn"
  home_mode_setup "$log" 3
  baseline=$(submit -o /dev/null -N 8 --wrap 'sleep 1') || fail "sbatch of the baseline failed"
  poll 60 "the 8-node baseline job COMPLETED" job_state_is "$baseline" COMPLETED

  a=$(gaptrain_submit -N 1-4 -- /usr/bin/python3 "$example/train_digits.py" \
    --checkpoint "$work/ckpt-a" --epochs $epochs --step-sleep 0.05)
  b=$(gaptrain_submit -N 1-4 -- /usr/bin/python3 "$example/train_digits.py" \
    --checkpoint "$work/ckpt-b" --epochs $epochs --step-sleep 0.05)
  for job in "$a" "$b"; do
    poll 60 "elastic job $job running at home" at_home "$job"
  done
  poll 180 "the two elastic jobs on all 8 nodes" on_all_eight "$a" "$b"
  for job in "$a" "$b"; do
    poll 300 "job $job training on its satellites" world_size_is "$work/.gaptrain/$job/progress.jsonl" "$(satellites_of "$job" | wc -l)"
  done

  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  cleanup_steps+=("kill -CONT $pid")
  kill -STOP "$pid"
  stopped_at=$SECONDS
  node=$(job_field "$(satellites_of "$a" | head -n 1)" NodeList)
  note "gaptraind (pid $pid) stopped; job $a trains on $node among others"
  pinned=$(regular_starts_alone -N 1 -w "$node" --wrap 'sleep 20')
  wide=$(regular_starts_alone -N 8 --wrap 'sleep 30')
  for job in "$a" "$b"; do
    poll 60 "elastic job $job paused at home" paused "$job"
    [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
  done
  # The 8-node job also needs the pinned job's node: it waits for that job's end as it would
  # without elastic jobs; its delay is counted from then.
  poll 60 "pinned job $pinned COMPLETED" job_state_is "$pinned" COMPLETED
  note "with gaptraind stopped: pinned job $pinned started $(start_delay "$pinned") s after submission, 8-node job $wide $(start_delay "$wide" "$pinned") s after its submission or the pinned job's end (on the empty cluster: $(start_delay "$baseline") s); jobs $a and $b paused at home"
  while ((SECONDS - stopped_at < 180)); do sleep 1; done
  for job in "$a" "$b"; do
    paused "$job" || fail "job $job not paused while gaptraind was stopped: $(satellites_of "$job" | tr '\n' ' ')"
  done
  kill -CONT "$pid"
  note "gaptraind continued after $((SECONDS - stopped_at)) s"
  poll 60 "regular job $wide COMPLETED" job_state_is "$wide" COMPLETED
  for job in "$a" "$b"; do
    poll 120 "job $job grown back" bash -c "[ -n \"\$(squeue -h -o '%j' | grep -x gaptrain:$job)\" ]"
  done
  for job in "$a" "$b"; do
    progress=$work/.gaptrain/$job/progress.jsonl
    poll 900 "elastic job $job COMPLETED (training finished)" job_state_is "$job" COMPLETED
    [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued"
    [ "$(tail -n 1 "$progress" | python3 -c 'import json, sys; print(json.load(sys.stdin)["samples_done"])')" = \
      $((epochs * 1797)) ] || fail "job $job: not every sample trained once: $(tail -n 1 "$progress")"
    grep -q "the job pauses\|the job waits on its home node" "$work/$job.out" ||
      fail "job $job's launcher did not say it paused: $(grep gaptrain-launch "$work/$job.out" | tail -n 20)"
    ! grep -q "Traceback" "$work/$job.out" ||
      fail "a traceback in job $job's output: $(grep -A5 Traceback "$work/$job.out" | head -n 30)"
  done
}
