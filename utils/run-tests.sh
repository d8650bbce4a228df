#!/usr/bin/env bash
# Runs the lit suite and the unit tests of a configured build directory and
# prints how many tests passed and failed. Exits non-zero on any failure.
# Arguments after the build directory go to ctest (`-E NAME` leaves one out).
set -uo pipefail

build_dir=${1:-build}
shift || true
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

# The HTML render test draws the reports in headless Chromium.
"$(dirname "$0")/install-deps.sh" --browser
# The PyTorch importer's tests need torch; they are skipped, not failed,
# where it cannot be installed.
"$(dirname "$0")/install-deps.sh" --torch ||
  echo "run-tests: PyTorch could not be installed; the pytorch-import test will be skipped"

echo "== lit (check-hyperoffload)"
cmake --build "$build_dir" --target check-hyperoffload 2>&1 | tee "$log_dir/lit.log"
lit_status=${PIPESTATUS[0]}

echo "== unit tests (ctest)"
# ctest names each test as it starts; these two run a while without output.
echo "   (results-current reruns the quick answers behind docs/Results.md and"
echo "   docs-commands runs every command the docs show: about a minute each)"
ctest --test-dir "$build_dir" --output-on-failure "$@" 2>&1 | tee "$log_dir/ctest.log"
ctest_status=${PIPESTATUS[0]}

# lit prints "  Passed: N (..%)" and one line per other non-zero outcome.
count_lit() {
  grep -E "^ +$1 *: +[0-9]+" "$log_dir/lit.log" | sed -E "s/.*: +//" | awk '{s += $1} END {print s + 0}'
}
lit_passed=$(count_lit Passed)
lit_failed=$(( $(count_lit Failed) + $(count_lit 'Unresolved') + $(count_lit 'Timed Out') \
  + $(count_lit 'Unexpectedly Passed') ))

# ctest prints "N% tests passed, F tests failed out of T".
ctest_line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log_dir/ctest.log")
ctest_failed=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$ctest_line")
ctest_total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$ctest_line")
ctest_failed=${ctest_failed:-0}
ctest_passed=$(( ${ctest_total:-0} - ctest_failed ))

echo
echo "== HyperOffload test summary"
printf '  lit:        %4d passed, %4d failed\n' "$lit_passed" "$lit_failed"
printf '  ctest:      %4d passed, %4d failed\n' "$ctest_passed" "$ctest_failed"
printf '  total:      %4d passed, %4d failed\n' \
  $(( lit_passed + ctest_passed )) $(( lit_failed + ctest_failed ))

if [ "$lit_status" -ne 0 ] || [ "$ctest_status" -ne 0 ] \
   || [ "$lit_failed" -ne 0 ] || [ "$ctest_failed" -ne 0 ] \
   || [ "$lit_passed" -eq 0 ] || [ "$ctest_passed" -eq 0 ]; then
  echo "FAILED"
  exit 1
fi
echo "OK"
