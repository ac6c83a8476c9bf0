#!/usr/bin/env bash
# scripts/ctest-failures on a real ctest run: a small project (in WORK_DIR) with a passing test,
# a skipped one, a case that fails with "FAIL:", a pytest-like failure, and one failing without
# output. Each failure gets its reason line, nothing else is named, and a run without failures
# or without a record prints nothing.
#
#   check_ctest_failures.sh SCRIPT WORK_DIR
set -euo pipefail
script=$1 work=$2
rm -rf "$work"
mkdir -p "$work/src"
cat >"$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(ctest_failures_check NONE)
enable_testing()
add_test(NAME passes COMMAND sh -c "echo FAIL: only words")
add_test(NAME skipped COMMAND sh -c "echo SKIP: not here; exit 77")
set_tests_properties(skipped PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME case_fails COMMAND sh -c "echo 'case: a note'; echo 'FAIL: the job never ran' >&2; exit 1")
add_test(NAME pytest_fails COMMAND sh -c "printf 'E   assert 1 == 2\nFAILED t.py::test_b - assert 1 == 2\n1 failed\n'; exit 1")
add_test(NAME silent_fails COMMAND sh -c "exit 3")
CMAKE
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -z "$("$script" "$work/build")" ] || fail "it printed something without a ctest record"
cmake -S "$work/src" -B "$work/build" >/dev/null
(cd "$work/build" && ctest -R passes >/dev/null) || fail "the passing test failed"
[ -z "$("$script" "$work/build")" ] || fail "it printed something for a run that passed"
(cd "$work/build" && ! ctest -j2 >/dev/null) || fail "the failing tests passed"
got=$("$script" "$work/build")
expected="why case_fails failed: FAIL: the job never ran
why pytest_fails failed: FAILED t.py::test_b - assert 1 == 2
why silent_fails failed: (no output)"
[ "$got" = "$expected" ] || fail "it printed:
$got
expected:
$expected"
echo "the three failures, each with its reason"
