#!/bin/sh
# usage: check_discover_hosts.sh DISCOVER_HOSTS_SH WORK_DIR
set -eu
script=$1 work=$2
mkdir -p "$work"
printf 'node1\n\n# a comment\nnode2:4\n node3' >"$work/hosts"  # no final newline on purpose
got=$(GAPTRAIN_HOSTFILE=$work/hosts "$script")
want=$(printf 'node1:1\nnode2:4\nnode3:1')
[ "$got" = "$want" ] || { printf 'FAIL: got\n%s\nwant\n%s\n' "$got" "$want"; exit 1; }
got=$(GAPTRAIN_HOSTFILE=$work/hosts GAPTRAIN_SLOTS_PER_HOST=2 "$script" | head -n 1)
[ "$got" = node1:2 ] || { echo "FAIL: with 2 slots per host got $got"; exit 1; }
if (unset GAPTRAIN_HOSTFILE; "$script") >/dev/null 2>&1; then
  echo "FAIL: no GAPTRAIN_HOSTFILE and still success"; exit 1
fi
echo PASS
