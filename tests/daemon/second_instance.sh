#!/usr/bin/env bash
# A second gaptraind on the state file of a running one refuses to start (state_lock.hpp): exit
# 1 and one line on stderr naming the state file and the running one's pid; the first keeps
# running and answering. Once the first is killed with SIGKILL, a new one starts on the same
# state (the kernel drops the lock with its holder: no stale lock).
#
#   second_instance.sh GAPTRAIND
#
# No Slurm needed: gaptraind starts and runs while slurmctld does not answer (its polls fail),
# so libslurm is pointed at a private slurm.conf naming a controller that is not there.
set -euo pipefail

gaptraind=$1
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  for f in "$tmp"/*.err; do [ -s "$f" ] && { echo "--- $f:" >&2; head -c 2000 "$f" >&2; }; done
  exit 1
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cat >"$tmp/slurm.conf" <<CONF
ClusterName=gaptrainlock
SlurmctldHost=localhost
SlurmctldPort=$(free_port)
NodeName=n1 CPUs=1 State=UNKNOWN
PartitionName=elastic Nodes=n1
CONF
export SLURM_CONF=$tmp/slurm.conf
state=$tmp/state.json
write_config() {  # FILE PORT
  printf '{"listen": "127.0.0.1:%s", "munge_socket": "", "state_file": "%s"}\n' "$2" "$state" >"$1"
}
write_config "$tmp/first.json" "$(free_port)"
write_config "$tmp/second.json" "$(free_port)"

# Starts gaptraind with CONFIG in the background and waits until it holds the lock (its pid in
# STATE.lock) and listens, or has exited.
start() {  # CONFIG NAME
  "$gaptraind" --config "$1" 2>"$tmp/$2.err" &
  started=$!
  pids+=("$started")
  for _ in $(seq 300); do
    kill -0 "$started" 2>/dev/null || fail "$2 gaptraind exited at start"
    if [ "$(cat "$state.lock" 2>/dev/null)" = "$started" ] && grep -q 'msg=listening' "$tmp/$2.err"; then
      return 0
    fi
    sleep 0.1
  done
  fail "$2 gaptraind did not take the lock and listen"
}

start "$tmp/first.json" first
first=$started

rc=0
"$gaptraind" --config "$tmp/second.json" >"$tmp/second.out" 2>"$tmp/second.err" || rc=$?
[ "$rc" = 1 ] || fail "the second gaptraind exited with $rc, expected 1"
[ ! -s "$tmp/second.out" ] || fail "the second gaptraind wrote on stdout"
[ "$(wc -l <"$tmp/second.err")" = 1 ] || fail "the second gaptraind did not say one line"
expected="gaptraind: another gaptraind (pid $first) is running on the state file $state"
grep -qF "$expected" "$tmp/second.err" || fail "the refusal does not say: $expected"
kill -0 "$first" 2>/dev/null || fail "the first gaptraind is gone"
python3 - "$(sed 's/.*127.0.0.1:\([0-9]*\).*/\1/' "$tmp/first.json")" <<'PY' ||
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
PY
  fail "the first gaptraind does not accept connections any more"

kill -KILL "$first"
wait "$first" 2>/dev/null || true
start "$tmp/second.json" third
echo "PASS: $(cat "$tmp/second.err")"
