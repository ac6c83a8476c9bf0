#!/usr/bin/env bash
# The ctest fixture `slurm_cluster`: brings a local Slurm cluster up (setup) or down
# (cleanup) through scripts/local-cluster, and keeps the export lines in DIR/env.sh, which
# every Slurm test sources.
#   cluster_fixture.sh start DIR [local-cluster start options...]
#   cluster_fixture.sh stop DIR
# Exits 77 (ctest: skipped) when not root: the cluster runs munged/mariadbd as their users.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lc=$here/../../scripts/local-cluster

action=${1:?usage: $0 start|stop DIR [options]}
dir=${2:?usage: $0 start|stop DIR [options]}
shift 2

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: the Slurm tests need root (they start munged, MariaDB, slurmdbd, slurmctld, slurmd)" >&2
  exit 77
fi

case $action in
  start)
    # A cluster left by an interrupted run would make start refuse: stop it first.
    "$lc" stop --dir "$dir"
    exports=$("$lc" start --dir "$dir" "$@")
    printf '%s\n' "$exports" >"$dir/env.sh"
    cat "$dir/env.sh"
    ;;
  stop)
    "$lc" stop --dir "$dir"
    ;;
  *) echo "unknown action $action" >&2; exit 2 ;;
esac
