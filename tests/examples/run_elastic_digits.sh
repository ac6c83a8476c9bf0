#!/usr/bin/env bash
# Elasticity of examples/pytorch-elastic/train_digits.py on this machine, without Slurm.
#
# usage: run_elastic_digits.sh EXAMPLE_DIR WORK_DIR
#
# Two torchrun agents ("nodes") on 127.0.0.1 share one c10d rendezvous (--nnodes=1:2):
#   1. agents A and B train at world size 2;
#   2. B is stopped (SIGTERM to its pid): A's worker loses its peer and fails, A restarts it
#      and the job goes on at world size 1 from the checkpoint;
#   3. a new agent C joins: A sees a node waiting, restarts its worker, world size 2 again;
#   4. A and C finish the run; check_progress.py then checks the progress log (steps go on
#      across restarts, world sizes 2, 1, 2, every epoch once, loss went down).
# Phases are driven by what the progress log shows, not by sleeps; every wait has a deadline.
# A hosts the rendezvous store (is_host=1) as the batch host does under Slurm; B and C only
# connect (is_host=0). Exit 77 (skip) when /usr/bin/python3 lacks torch or sklearn.
set -u -o pipefail
set -m  # every background job gets its own process group (pgid = its pid): see stop_agent

example_dir=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
py=${GAPTRAIN_TORCH_PYTHON:-/usr/bin/python3}  # Debian's python3-torch; the python3 on PATH may lack it
epochs=10
dataset_size=1797  # sklearn's digits

if ! "$py" -c 'import torch, torch.distributed as d, sklearn; assert d.is_available() and d.is_gloo_available()' \
    2>/dev/null; then
  echo "SKIP: $py cannot import torch (with gloo) and sklearn (apt install python3-torch python3-sklearn)"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work"
progress=$work/ckpt/progress.jsonl
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export GLOO_SOCKET_IFNAME=lo  # gloo's connections stay on loopback
start_time=$SECONDS

declare -A agent_pid=()
start_agent() {  # start_agent NAME IS_HOST
  local name=$1 is_host=$2
  # Torch 1.13 takes only the underscore spellings of the flags (2.x takes both).
  # --redirects=2 --tee=2: on Python 3.11 torch 1.13 crashes with the default 0 (Std.from_str
  # finds no IntFlag member for 0); 2 sends the workers' stderr to a file and the console.
  # last_call_timeout=1: once the minimum of nodes is there, wait 1 s (not 30) for more.
  # elastic_run.py: torchrun as the example runs it (no libuv, stopped agents leave the
  # rendezvous open: examples/pytorch-elastic/elastic_run.py).
  "$py" "$example_dir/elastic_run.py" --nnodes=1:2 --nproc_per_node=1 \
    --rdzv_backend=c10d --rdzv_endpoint="127.0.0.1:$port" --rdzv_id=digits-test \
    --rdzv_conf="is_host=$is_host,last_call_timeout=1,join_timeout=120" \
    --max_restarts=3 --monitor_interval=1 --redirects=2 --tee=2 --log_dir="$work/logs-$name" \
    "$example_dir/train_digits.py" --checkpoint "$work/ckpt" --epochs $epochs \
    --batch-size 32 --checkpoint-every 5 --step-sleep 0.05 >"$work/agent-$name.log" 2>&1 &
  agent_pid[$name]=$!
  echo "$(elapsed) agent $name started, pid ${agent_pid[$name]}"
}

elapsed() { printf '[%3ds]' $((SECONDS - start_time)); }

stop_agent() {  # stop_agent NAME: SIGTERM, then SIGKILL to its process group after 15 s
  local name=$1 pid=${agent_pid[$1]:-}
  [[ -n $pid ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    # The group is the agent and its workers (set -m): nothing else of ours or anyone's.
    kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  unset "agent_pid[$name]"
}

cleanup() {
  for name in "${!agent_pid[@]}"; do stop_agent "$name"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL: $*"
  for f in "$work"/agent-*.log; do
    echo "---- tail of $f"
    tail -n 40 "$f"
  done
  [[ -f $progress ]] && { echo "---- tail of $progress"; tail -n 5 "$progress"; }
  exit 1
}

# wait_for DESCRIPTION DEADLINE_S PYTHON_EXPR: until EXPR holds for the lines so far. In EXPR,
# `lines` is the list of parsed lines and `ws` the world sizes with repeats collapsed.
wait_for() {
  local what=$1 deadline=$((SECONDS + $2)) expr=$3
  until "$py" - "$progress" "$expr" <<'EOF'
import json, sys
try:
    lines = [json.loads(l) for l in open(sys.argv[1])]
except (OSError, ValueError):
    sys.exit(1)
ws = [r["world_size"] for i, r in enumerate(lines) if i == 0 or lines[i - 1]["world_size"] != r["world_size"]]
sys.exit(0 if lines and eval(sys.argv[2]) else 1)
EOF
  do
    ((SECONDS < deadline)) || fail "timed out waiting for $what"
    for name in "${!agent_pid[@]}"; do
      kill -0 "${agent_pid[$name]}" 2>/dev/null || fail "agent $name exited while waiting for $what"
    done
    sleep 0.3
  done
  echo "$(elapsed) $what: $(tail -n 1 "$progress")"
}

listening() { "$py" -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null; }

# 1. A first, so that it hosts the store; then B.
start_agent A 1
deadline=$((SECONDS + 60))
until listening; do
  ((SECONDS < deadline)) || fail "agent A does not listen on 127.0.0.1:$port"
  kill -0 "${agent_pid[A]}" 2>/dev/null || fail "agent A exited"
  sleep 0.2
done
start_agent B 0
wait_for "training at world size 2" 90 'lines[-1]["world_size"] == 2 and lines[-1]["step"] >= 15'

# 2. Shrink: B leaves. A's next rendezvous waits for B's keep-alive to expire (~15 s in 1.13).
kill_step=$(tail -n 1 "$progress" | "$py" -c 'import json,sys; print(json.load(sys.stdin)["step"])')
echo "$(elapsed) stopping agent B (SIGTERM to pid ${agent_pid[B]})"
stop_agent B
wait_for "training at world size 1" 90 "ws[-2:] == [2, 1] and lines[-1]['step'] >= $kill_step + 10"

# 3. Grow: C joins; A notices a waiting node within --monitor_interval and restarts.
start_agent C 0
wait_for "training at world size 2 again" 90 'ws[-3:] == [2, 1, 2]'

# 4. A and C finish the run.
for name in A C; do
  pid=${agent_pid[$name]}
  deadline=$((SECONDS + 120))
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || fail "agent $name did not finish"
    sleep 0.3
  done
  wait "$pid"
  rc=$?
  unset "agent_pid[$name]"
  ((rc == 0)) || fail "agent $name exited with $rc"
  echo "$(elapsed) agent $name finished"
done

"$py" "$here/check_progress.py" "$progress" $epochs $dataset_size 2 1 2 || fail "progress log check"
echo "$(elapsed) PASS"
