#!/usr/bin/env bash
# Runs one file of the Python helper's tests (python/tests) with Debian's python3 and pytest.
# usage: run_pytest.sh TEST_FILE. Exit 77 (skip) when /usr/bin/python3 lacks torch (with gloo)
# or pytest: apt install python3-torch python3-pytest (scripts/install-deps does). The check is
# the suites' fixture's (python_fixture.sh check), so that a suite run alone skips as they do.
set -u
py=${GAPTRAIN_TORCH_PYTHON:-/usr/bin/python3}  # the python3 on PATH may not see Debian's torch
if ! found=$("$(dirname "$0")/python_fixture.sh" check 2>&1); then
  echo "${found:-SKIP: $py cannot import pytest and torch with gloo (apt install python3-torch python3-pytest)}"
  exit 77
fi
export GLOO_SOCKET_IFNAME=lo OMP_NUM_THREADS=1  # gloo stays on loopback; one thread a worker
exec "$py" -m pytest -q -p no:cacheprovider "$1"
