#!/bin/sh
# One node's share of an elastic train_digits.py job under gaptrain: gaptrain-launch starts
# this once per node of the job (one srun step each) and stops it (SIGTERM) on the nodes it
# gives back. Arguments go to train_digits.py, e.g. --checkpoint /shared/dir --epochs 50.
#
# The rendezvous store lives on the batch host ($GAPTRAIN_MASTER_ADDR, the first host of the
# job), which stays for the job's whole life; the other nodes only connect to it. is_host is
# set explicitly because several nodes may look like the endpoint's host (several slurmd on
# one machine, as in scripts/local-cluster) and the store must not end up on a node that
# leaves.
#
# Environment: GAPTRAIN_MASTER_ADDR and GAPTRAIN_JOB_ID (set by gaptrain-launch; the job id is
# the rendezvous id: on a node the job grew into, SLURM_JOB_ID is the satellite allocation's),
# GAPTRAIN_RDZV_HOST (the address to reach the batch host at, default its name: set it where
# node names do not resolve, e.g. 127.0.0.1 on scripts/local-cluster), GAPTRAIN_RDZV_PORT
# (29400), GAPTRAIN_MIN_NODES (1), GAPTRAIN_MAX_NODES (64: only an upper bound, the rendezvous
# completes last_call_timeout after the minimum is there).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
master=${GAPTRAIN_MASTER_ADDR:?GAPTRAIN_MASTER_ADDR is not set (gaptrain-launch sets it)}
node=${SLURMD_NODENAME:-$(hostname)}
if [ "$node" = "$master" ]; then is_host=1; else is_host=0; fi
# Torch 1.13 takes only the underscore spellings of these flags (2.x also the dashed ones).
# --max_restarts: every shrink fails the survivors' workers once and counts (growth does not).
# --redirects=2 --tee=2: works around torch 1.13 on Python 3.11 (the default 0 crashes).
# elastic_run.py is torchrun with this torch's libuv and shutdown quirks handled (see there).
exec /usr/bin/python3 "$here/elastic_run.py" \
  --nnodes="${GAPTRAIN_MIN_NODES:-1}:${GAPTRAIN_MAX_NODES:-64}" --nproc_per_node=1 \
  --rdzv_backend=c10d --rdzv_endpoint="${GAPTRAIN_RDZV_HOST:-$master}:${GAPTRAIN_RDZV_PORT:-29400}" \
  --rdzv_id="${GAPTRAIN_JOB_ID:-${SLURM_JOB_ID:-digits}}" --rdzv_conf="is_host=$is_host,last_call_timeout=5" \
  --max_restarts=100 --monitor_interval=2 --redirects=2 --tee=2 \
  "$here/train_digits.py" "$@"
