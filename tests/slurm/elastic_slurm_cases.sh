# Slurm's side of resizing: accounts and QOS, GRES, a cluster without job shrink, a node taken
# while gaptraind is stopped, a DOWN node past its lease, two partitions, allowed sizes, node types.
# Sourced by run_elastic_case.sh (its helpers and the case's `work` in scope).
# shellcheck shell=bash
# shellcheck disable=SC2154 # launch, work, here and the cluster's variables are run_elastic_case.sh's

# Puts slurm.conf back as it was (CONF from ORIG), reconfigures slurmctld and waits (without
# failing: it runs at exit) until gaptraind has read Slurm's settings again, so that the next
# case finds it shrinking jobs as before.
restore_job_shrink() {  # restore_job_shrink CONF ORIG LOG
  local lines deadline=$((SECONDS + 60))
  lines=$(wc -l <"$3")
  cp "$2" "$1" && scontrol reconfigure
  until logged_after "$3" "$lines" 'msg="slurm release"' || ((SECONDS >= deadline)); do
    sleep 0.2
  done
}

# Satellites are charged as their job is: an elastic job submitted with an account and a QOS
# other than its user's defaults grows into satellites of that account and QOS, not the
# defaults' (whose limits and bills are another project's).
case_account_and_qos() {
  local cluster job satellites charged
  cluster=$(scontrol show config | awk '$1 == "ClusterName" {print $3}')
  # The cluster lives on across cases (and a failed case runs once more): add what is missing.
  sacctmgr -n -P show account vision format=account | matches -x vision ||
    sacctmgr -i add account vision Cluster="$cluster" Description=tests Organization=gaptrain >/dev/null
  sacctmgr -n -P show qos train format=name | matches -x train ||
    sacctmgr -i add qos train >/dev/null
  sacctmgr -n -P show assoc where user=root account=vision format=account | matches -x vision ||
    sacctmgr -i add user root Account=vision Cluster="$cluster" >/dev/null
  sacctmgr -i modify user where name=root account=vision set qos+=train >/dev/null || true
  sacctmgr -n -P show assoc where user=root account=vision format=qos | tr ',' '\n' | matches -x train ||
    fail "root's association with account vision lacks QOS train: $(sacctmgr -n -P show assoc where user=root format=account,qos | tr '\n' ' ')"
  elastic_grown_into_satellites "$idle_loop" -A vision --qos train
  [ "$(squeue -h -j "$job" -o '%a %q')" = "vision train" ] ||
    fail "elastic job $job runs as $(squeue -h -j "$job" -o '%a %q'), not vision train"
  satellites=$(satellites_of "$job")
  charged=$(for s in $satellites; do squeue -h -j "$s" -o '%a %q'; done | sort -u | tr '\n' ';')
  # shellcheck disable=SC2086,SC2116 # echo unquoted: the satellites' ids on one line
  [ "$charged" = "vision train;" ] ||
    fail "satellites of job $job ($(echo $satellites)) charged to $charged, not vision train"
  note "elastic job $job and its $(echo "$satellites" | wc -w) satellites: account vision, QOS train"
}

# A job's per-node GRES goes with it: an elastic job that asked for 2 GPUs a node grows into
# satellites that hold 2 GPUs each (the cluster's GPUs are stand-ins), so that its training
# steps there see them. One that asked for GPUs only as a job total is refused, with why.
case_gres() {
  local job satellites asked held lines log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  lines=$(wc -l <"$log")
  job=$(submit_elastic "$idle_loop" --gpus=2)
  poll 60 "the registration of job $job (--gpus=2) refused" logged_after "$log" "$lines" \
    "job $job asks for its GPUs as a job total"
  [ "$(query_status "job($job) is not None")" = False ] ||
    fail "job $job, GPUs as a job total, is managed"
  scancel "$job"
  poll 60 "job $job ended" job_ended "$job"

  elastic_grown_into_satellites "$idle_loop" --gres=gpu:2
  asked=$(squeue -h -j "$job" -o %b)
  [[ $asked == *gpu:2* ]] || fail "elastic job $job asks for '$asked', not gpu:2 a node"
  satellites=$(satellites_of "$job")
  for s in $satellites; do
    [ "$(squeue -h -j "$s" -o %b)" = "$asked" ] ||
      fail "satellite $s of job $job asks for '$(squeue -h -j "$s" -o %b)', not '$asked'"
    held=$(scontrol show -d job "$s" | grep -o 'JOB_GRES=[^ ]*' || true)
    [ "$held" = "JOB_GRES=gpu:2" ] ||
      fail "satellite $s of job $job holds '$held', not JOB_GRES=gpu:2: $(scontrol show -d job "$s" | grep -i gres)"
  done
  note "elastic job $job ($asked) and its $(echo "$satellites" | wc -w) satellites: 2 GPUs each"
}

# SchedulerParameters=disable_job_shrink (slurmctld then refuses to shrink any job): gaptraind
# reads it at its next full poll, says so in one line, and never shrinks a job's own nodes from
# then on. A regular job that needs nodes the elastic job grew into gets them as before (its
# satellites are given back); one that needs the job's own nodes gets them by a requeue of the
# elastic job. Both start within the same 5 s.
case_no_job_shrink() {
  local conf=$GAPTRAIN_CLUSTER_DIR/etc/slurm.conf log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log
  local blocker job batch_host regular lines
  lines=$(wc -l <"$log")
  cp "$conf" "$work/slurm.conf.orig"
  cleanup_steps+=("restore_job_shrink '$conf' '$work/slurm.conf.orig' '$log'")
  sed -i 's/^SchedulerParameters=.*/&,disable_job_shrink/' "$conf"
  scontrol reconfigure
  poll 60 "gaptraind saying it will not shrink jobs" \
    logged_after "$log" "$lines" 'disable_job_shrink: gaptraind never shrinks'

  elastic_beside_blocker
  batch_host=$(job_field "$job" BatchHost)
  ! scontrol update JobId="$job" NumNodes=1 2>/dev/null ||
    fail "slurmctld shrank job $job although SchedulerParameters has disable_job_shrink"
  scancel "$blocker"
  poll 60 "elastic job $job grown to 8 nodes" elastic_at "$job" 8
  regular=$(regular_starts_quickly 4 3 "$job" "$batch_host")
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  [ "$(job_field "$job" Restarts)" = 0 ] || fail "elastic job $job was requeued for satellites"
  poll 60 "elastic job $job grown back to 8 nodes" elastic_at "$job" 8

  # 7 nodes: the 6 satellites and the job's own node beside its batch host.
  lines=$(wc -l <"$log")
  regular_starts_in_time 7 3 >/dev/null
  logged_after "$log" "$lines" "ACTION=requeue JOB_ID=$job " ||
    fail "gaptraind did not requeue job $job: $(grep "JOB_ID=$job " "$log" | tail -n 5)"
  no_node_shared
}

# While gaptraind cannot answer (stopped with SIGSTOP), Slurm takes two nodes from an
# elastic job grown into satellites: one satellite is cancelled, and the job's own node beside
# its batch host is shrunk away (srun then says "Requested node configuration is not
# available"). The launcher learns it from Slurm, drops both nodes instead of counting their
# steps' failures until it gives up (it did, and the job ended FAILED), and the steps on the
# other nodes train on. gaptraind continued grows the job back; it ends COMPLETED.
case_node_taken_while_controller_stopped() {
  local job pid batch_host own_node satellite satellite_node finish=$work/finish out
  elastic_grown_into_satellites "bash -c 'until [ -e $finish ]; do sleep 1; done'"
  out=$work/$job.out
  batch_host=$(job_field "$job" BatchHost)
  own_node=$(scontrol show hostnames "$(job_field "$job" NodeList)" | grep -vx "$batch_host" | head -n 1)
  satellite=$(satellites_of "$job" | head -n 1)
  satellite_node=$(squeue -h -j "$satellite" -o %N)
  if [ -z "$own_node" ] || [ -z "$satellite_node" ]; then
    fail "job $job has no own node beside $batch_host ('$own_node') or no satellite ('$satellite')"
  fi

  read -r pid _ <"$GAPTRAIN_CLUSTER_DIR/run/gaptraind.pid"
  cleanup_steps+=("kill -CONT $pid")
  kill -STOP "$pid"
  note "gaptraind (pid $pid) stopped; taking $satellite_node (satellite $satellite) and $own_node from job $job"
  scancel "$satellite"
  scontrol update JobId="$job" NodeList="$batch_host" || fail "cannot shrink job $job to $batch_host"
  poll 120 "the launcher of job $job dropping $satellite_node and $own_node" \
    launcher_dropped "$job" "$out" "$satellite_node" "$own_node"
  poll 60 "steps of job $job on the 6 nodes left" steps_on_nodes_left "$job" 6
  note "$(grep -E 'taken back' "$out" | tr '\n' ' ')"

  kill -CONT "$pid"
  note "gaptraind continued"
  poll 120 "elastic job $job grown back to 8 nodes" elastic_at "$job" 8
  no_node_shared
  touch "$finish"
  poll 120 "elastic job $job COMPLETED" job_state_is "$job" COMPLETED
  ! grep -q 'giving up' "$out" || fail "the launcher of job $job gave up a step: $(grep 'giving up' "$out")"
}

# gaptraind down longer than a lease. Only gaptraind renews the leases (Slurm time
# limits lease_s ahead, here the least, 60 s) of an elastic job and its satellites; killed, it
# renews none, and Slurm ends each satellite and the job at its lease as it ends any job at its
# limit (TIMEOUT), every node going back to the regular workload. The launcher, failing open,
# said the controller was unreachable and kept training until then. Started again, gaptraind
# finds the job ended and does not take it back (docs/admin.md, "gaptraind down longer than a
# lease").
case_down_past_lease() {
  local job pid out satellites satellite state log=$GAPTRAIN_CLUSTER_DIR/log/gaptraind.log lines
  reconfigure_gaptraind '"lease_s": 60'
  elastic_grown_into_satellites "$idle_loop"
  out=$work/$job.out
  satellites=$(satellites_of "$job")
  [ -n "$satellites" ] || fail "job $job grew to 8 nodes without a satellite"
  # The restart below, also when the case fails before it: the next case needs gaptraind.
  cleanup_steps+=("'$here/../../scripts/local-cluster' start-controller --dir '$GAPTRAIN_CLUSTER_DIR' >/dev/null")
  kill_gaptraind
  note "gaptraind killed; job $job (TimeLimit $(job_field "$job" TimeLimit)) and its satellites" \
    "$(echo "$satellites" | tr '\n' ' ')are left to their leases"
  poll 300 "elastic job $job ended by Slurm at its lease (TIMEOUT)" job_state_is "$job" TIMEOUT
  for satellite in $satellites; do
    poll 120 "satellite $satellite ended" bash -c "! squeue -h -j $satellite -t PD,R,CG | grep -q ."
    state=$(sacct -n -X -P -j "$satellite" -o State | head -n 1)
    note "satellite $satellite: $state"
    case $state in
      TIMEOUT | CANCELLED*) ;;
      *) fail "satellite $satellite ended $state, not at its lease (TIMEOUT) or with its job" ;;
    esac
  done
  grep -q 'controller unreachable' "$out" ||
    fail "the launcher of job $job never said the controller was unreachable; $(job_context "$job")"
  poll 60 "every node idle again" all_nodes_idle
  lines=$(wc -l <"$log")
  "$here/../../scripts/local-cluster" start-controller --dir "$GAPTRAIN_CLUSTER_DIR" >/dev/null
  poll 60 "the restarted gaptraind did not take job $job back" \
    logged_after "$log" "$lines" "msg=\"saved elastic job not restored\" JOB_ID=$job "
  note "$(tail -n +"$((lines + 1))" "$log" | grep "JOB_ID=$job " | head -n 1)"
}

# Two elastic partitions, each with its own holes and jobs: gpu over n1..n4 and cpu
# over n5..n8 (scontrol create; deleted at exit), gaptraind.json's elastic_partition "gpu,cpu".
# A regular job on n2..n4 and one on n6..n8: a job in each elastic partition starts on its one
# idle node. When the cpu nodes free up, the cpu job alone grows into them (the gpu job may not:
# its holes are gpu's); when the gpu nodes do, the gpu job grows into them. No job ever holds a
# node of the other partition, and the metrics count each partition's elastic nodes.
held_within() {  # held_within JOB NODELIST: JOB and its satellites run on NODELIST's nodes only
  local allowed node
  allowed=$(scontrol show hostnames "$2")
  for node in $(squeue -h -t R -o '%i %j %N' |
    awk -v id="$1" '$1 == id || $2 == "gaptrain:" id {print $3}' | xargs -r -n1 scontrol show hostnames); do
    grep -qx "$node" <<<"$allowed" || return 1
  done
}
partitions_gone() { [ -z "$(squeue -h -p gpu,cpu 2>/dev/null)" ]; }
delete_two_partitions() {
  scancel -p gpu 2>/dev/null
  scancel -p cpu 2>/dev/null
  local deadline=$((SECONDS + 60))
  until partitions_gone || ((SECONDS >= deadline)); do sleep 0.2; done
  scontrol delete PartitionName=gpu
  scontrol delete PartitionName=cpu
}

submit_in() {  # submit_in PARTITION: an elastic job of 1-4 nodes running the idle loop
  submit -p "$1" -N 1-4 --elastic=1-4 --elastic-cost=1:1 -t 30 \
    --wrap "exec $launch --poll-ms 250 --grace-s 5 -- $idle_loop"
}
four_elastic_nodes_in_each() {
  [ "$(metric 'gaptrain_elastic_nodes{partition="gpu"}')" = 4 ] &&
    [ "$(metric 'gaptrain_elastic_nodes{partition="cpu"}')" = 4 ]
}

case_two_partitions() {
  local gpu_job cpu_job gpu_blocker cpu_blocker
  scontrol create PartitionName=gpu Nodes=n[1-4] PriorityTier=1 MaxTime=INFINITE State=UP
  scontrol create PartitionName=cpu Nodes=n[5-8] PriorityTier=1 MaxTime=INFINITE State=UP
  cleanup_steps+=("delete_two_partitions")
  reconfigure_gaptraind '"elastic_partition": "gpu,cpu"'
  gpu_blocker=$(submit -p regular -w 'n[2-4]' -N 3 -t 10 --wrap 'sleep 600')
  cpu_blocker=$(submit -p regular -w 'n[6-8]' -N 3 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $gpu_blocker RUNNING" job_state_is "$gpu_blocker" RUNNING
  poll 60 "regular job $cpu_blocker RUNNING" job_state_is "$cpu_blocker" RUNNING
  gpu_job=$(submit_in gpu)
  cpu_job=$(submit_in cpu)
  poll 60 "gpu job $gpu_job on n1" elastic_at "$gpu_job" 1
  poll 60 "cpu job $cpu_job on n5" elastic_at "$cpu_job" 1
  scancel "$cpu_blocker"
  poll 90 "cpu job $cpu_job grown into the cpu nodes (n6..n8)" elastic_at "$cpu_job" 4
  elastic_at "$gpu_job" 1 ||
    fail "gpu job $gpu_job grew while only cpu nodes were free: $(squeue -h -o '%i %j %P %N' | tr '\n' ';')"
  scancel "$gpu_blocker"
  poll 90 "gpu job $gpu_job grown into the gpu nodes (n2..n4)" elastic_at "$gpu_job" 4
  held_within "$gpu_job" 'n[1-4]' ||
    fail "gpu job $gpu_job holds nodes outside gpu: $(squeue -h -o '%i %j %P %N' | tr '\n' ';')"
  held_within "$cpu_job" 'n[5-8]' ||
    fail "cpu job $cpu_job holds nodes outside cpu: $(squeue -h -o '%i %j %P %N' | tr '\n' ';')"
  no_node_shared
  poll 30 "4 elastic nodes in each partition's metrics" four_elastic_nodes_in_each
  [ "$(query_status "job($gpu_job)['partition'] + ',' + job($cpu_job)['partition']")" = gpu,cpu ] ||
    fail "gaptrain status names other partitions: $(query_status "[(j['job_id'], j['partition']) for j in s['elastic_jobs']]")"
  note "$(squeue -h -o '%i %j %P %N' -p gpu,cpu | tr '\n' ';')"
  scancel "$gpu_job" "$cpu_job"
}

# A job that runs only at even counts (gaptrain submit -N 2-8:2) beside a regular job
# on 3 nodes: admitted on 2 and grown to 4 of the 5 free nodes; the regular job ended, to 8; a
# regular job of one node (it starts within max_start_s) takes it to 6 at once, the seventh
# given back with the taken one; back to 8 once that job ends. gaptraind's record of the job's
# node count over time (`gaptrain job --json`) holds even counts only.
node_counts_of() {  # node_counts_of JOB: the node counts gaptraind recorded, sorted, once each
  "$GAPTRAIN_CLI" job "$1" --json |
    python3 -c 'import json, sys; print(sorted({int(n) for _, n in json.load(sys.stdin)["nodes_over_time"]} - {0}))'
}

case_allowed_sizes() {
  local blocker job regular counts
  blocker=$(submit -p regular -w 'n[6-8]' -N 3 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(gaptrain_submit -N 2-8:2 --cost 1:1 -- bash -c 'while true; do sleep 1; done')
  poll 60 "elastic job $job RUNNING" job_state_is "$job" RUNNING
  poll 90 "job $job on 4 of the 5 free nodes" elastic_at "$job" 4
  [ "$(query_status "str(job($job)['allowed_sizes'])")" = "[2, 4, 6, 8]" ] ||
    fail "gaptraind's view of job $job lacks its counts: $(query_status "job($job)")"
  scancel "$blocker"
  poll 90 "job $job on all 8 nodes" elastic_at "$job" 8
  regular=$(regular_starts_in_time 1 20)
  poll 60 "job $job down to 6 nodes (7 would be odd)" elastic_at "$job" 6
  poll 60 "regular job $regular done" job_state_is "$regular" COMPLETED
  poll 90 "job $job back on 8 nodes" elastic_at "$job" 8
  counts=$(node_counts_of "$job")
  note "job $job ran on $counts nodes"
  [ "$counts" = "[2, 4, 6, 8]" ] || [ "$counts" = "[4, 6, 8]" ] ||
    fail "job $job ran on counts it does not allow: $counts"
  scancel "$job"
}

# Nodes of two types (the local cluster's a100 n[1-4] and v100 n[5-8], named in
# gaptraind.json's node_types). A job with a curve per type (an a100 node twice a v100's) and
# --constraint="[a100|v100]", while a regular job holds n[2-4], starts on one type and grows to
# the 4 v100 nodes (4 v100 beat the 1 free a100); once the a100 nodes are free it stays on
# v100 (a job is never migrated), and a second such job runs on the 4 a100 nodes. No job ever
# holds two types; every satellite asked Slurm for its node's type (squeue %f); gaptrain
# status says each job's type and its two given curves.
satellites_ask_for() {  # satellites_ask_for JOB FEATURE: each satellite of JOB asks FEATURE
  local features
  features=$(squeue -h -t R -o '%j %f' | awk -v name="gaptrain:$1" '$1 == name {print $2}' | sort -u)
  [ -n "$features" ] && [ "$features" = "$2" ]
}

case_node_types() {
  local blocker job second curves
  reconfigure_gaptraind '"node_types": ["a100", "v100"]'
  curves=$work/typed-curve.csv
  printf 'type,nodes,samples_per_s\na100,1,200\na100,4,780\nv100,1,100\nv100,4,390\n' >"$curves"
  blocker=$(submit -p regular -w 'n[2-4]' -N 3 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(gaptrain_submit -N 1-4 --curve "$curves" --cost 1:1 --constraint='[a100|v100]' \
    -- bash -c 'while true; do sleep 1; done')
  poll 90 "job $job on the 4 v100 nodes" elastic_at "$job" 4
  held_within "$job" 'n[5-8]' ||
    fail "job $job holds nodes outside v100: $(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  satellites_ask_for "$job" v100 ||
    fail "job $job's satellites do not ask for v100: $(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  [ "$(query_status "job($job)['type'] + ':' + ','.join(sorted(job($job)['curves']))")" = v100:a100,v100 ] ||
    fail "gaptrain status does not say job $job's type and curves: $(query_status "job($job)")"
  scancel "$blocker"
  second=$(gaptrain_submit -N 1-4 --curve "$curves" --cost 1:1 --constraint='[a100|v100]' \
    -- bash -c 'while true; do sleep 1; done')
  poll 90 "second job $second on the 4 a100 nodes" elastic_at "$second" 4
  held_within "$second" 'n[1-4]' ||
    fail "job $second holds nodes outside a100: $(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  held_within "$job" 'n[5-8]' ||
    fail "job $job moved off v100: $(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  satellites_ask_for "$second" a100 ||
    fail "job $second's satellites do not ask for a100: $(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  [ "$(query_status "job($second)['type']")" = a100 ] ||
    fail "gaptrain status does not say job $second runs on a100: $(query_status "job($second)")"
  note "$(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  scancel "$job" "$second"
}

# A job that says it may mix node types (gaptrain submit --mix-types, one curve) holds
# nodes of both types at once. With regular jobs on n[2-4] and n[6-8] it grows onto the one free
# a100 node and the one free v100 node; gaptraind does not set it aside, `gaptrain status` names
# both types, and each satellite asks Slurm for its own node's type.
case_node_types_mixed() {
  local blocker job types
  reconfigure_gaptraind '"node_types": ["a100", "v100"]'
  blocker=$(submit -p regular -w 'n[2-4],n[6-8]' -N 6 -t 10 --wrap 'sleep 600')
  poll 60 "regular job $blocker RUNNING" job_state_is "$blocker" RUNNING
  job=$(gaptrain_submit -N 1-4 --mix-types --cost 1:1 -- bash -c 'while true; do sleep 1; done')
  poll 90 "job $job on n1 (a100) and n5 (v100)" elastic_at "$job" 2
  held_within "$job" 'n[1,5]' ||
    fail "job $job holds other nodes: $(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  types=$(query_status "job($job)['type'] + ' ' + str(job($job).get('mix_types'))")
  [ "$types" = "a100+v100 True" ] || [ "$types" = "v100+a100 True" ] ||
    fail "gaptrain status does not say job $job mixes a100 and v100: $types"
  note "$(squeue -h -o '%i %j %N %f' | tr '\n' ';')"
  scancel "$job" "$blocker"
}
