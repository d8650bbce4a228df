#!/usr/bin/env bash
# Runs the libFuzzer harness of a sanitizer build for a given time:
#
#   utils/fuzz.sh [BUILD_DIR] [SECONDS]      # default build-sanitize, 600
#
# The corpus starts from every .mlir file of examples/ and test/ and grows in
# BUILD_DIR/fuzz-corpus; findings (crashes, sanitizer reports, inputs that
# take over 20 s) land in BUILD_DIR/fuzz-findings and make it fail. Each
# finding belongs in test/Fuzz/ once fixed.
set -euo pipefail

src_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-build-sanitize}
seconds=${2:-600}
fuzzer=$build_dir/bin/hyperoffload-fuzz
if [ ! -x "$fuzzer" ]; then
  echo "fuzz: $fuzzer is missing; build it with \`make check-sanitize\`" >&2
  exit 1
fi

corpus=$build_dir/fuzz-corpus
findings=$build_dir/fuzz-findings
mkdir -p "$corpus" "$findings"
seeds=$build_dir/fuzz-seeds
rm -rf "$seeds" && mkdir -p "$seeds"
find "$src_dir/examples" "$src_dir/test" -name '*.mlir' -size -64k |
  while read -r file; do cp "$file" "$seeds/$(echo "$file" | md5sum | cut -c1-16).mlir"; done

# Fork mode keeps fuzzing past a crash, so that one upstream parser bug
# does not end the run; every crash is still saved.
before=$(ls "$findings" | wc -l)
ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$fuzzer" -fork=1 -ignore_crashes=1 -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -dict="$src_dir/utils/fuzz/ho.dict" \
  -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" "$seeds" || true

# A finding that the stock mlir-opt also crashes on while merely parsing it
# is MLIR's, not ours.
mlir_opt=$(sed -n 's/^HYPEROFFLOAD_STOCK_MLIR_OPT:FILEPATH=//p' "$build_dir/CMakeCache.txt")
ours=0
echo
echo "== findings in $findings ($(( $(ls "$findings" | wc -l) - before )) new)"
for finding in "$findings"/*; do
  [ -e "$finding" ] || continue
  status=0
  [ -x "$mlir_opt" ] && { timeout 60 "$mlir_opt" "$finding" >/dev/null 2>&1 || status=$?; }
  if [ "$status" -ge 128 ]; then
    echo "  upstream (stock mlir-opt crashes parsing it): $finding"
  else
    echo "  ours: $finding"
    ours=$((ours + 1))
  fi
done
[ "$ours" -eq 0 ]
