#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one unit-test suite as ctest's test. The test framework prints a
# failed check only at its most verbose level, where every passed check is
# printed too; so all checks go to a log file and, when the suite fails, the
# failed ones (file, line, the values compared) are printed after its output.
# Usage: run_suite.sh TEST_BINARY SUITE [TESTS_LEFT_OUT]
# TESTS_LEFT_OUT: a regular expression of the suite's tests not to run.
set -u
bin=$1
suite=$2
left_out=${3:-}
log=$(mktemp "${TMPDIR:-/tmp}/restcache-suite-$suite.XXXXXX")
trap 'rm -f "$log"' EXIT
if [ -n "$left_out" ]; then
  "$bin" -r 300 -s "^${suite}\$" -T "$left_out" -l "$log" -V 4
else
  "$bin" -r 300 -s "^${suite}\$" -l "$log" -V 4
fi
rc=$?
if [ "$rc" -ne 0 ]; then
  echo "failed checks of $suite:"
  grep -a '^!! ' "$log" | head -n 40
fi
exit "$rc"
