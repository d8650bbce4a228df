#!/usr/bin/env bash
# Checks that another project can use an installed HyperOffload: installs the
# build into <build>/install, configures and builds examples/consumer against
# that prefix only, and runs its tool once on examples/consumer/kv_cache.mlir.
# ctest runs it as `consumer-example`; CMAKE_GENERATOR, CXX and
# CMAKE_CXX_COMPILER_LAUNCHER from the environment carry over to the consumer.
set -euo pipefail

src_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
prefix=$build_dir/install
consumer_dir=$build_dir/consumer

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
test -f "$prefix/lib/cmake/hyperoffload/HyperOffloadConfig.cmake"
test -f "$prefix/lib/libHyperOffloadPlugin.so"

cmake -S "$src_dir/examples/consumer" -B "$consumer_dir" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$consumer_dir"

out=$("$consumer_dir/ho-plan" "$src_dir/examples/consumer/kv_cache.mlir" \
  "$src_dir/test/Transforms/Inputs/round-numbers.json" 1500000B)
echo "$out"
# The cache goes to the pool and comes back; the arena holds the schedule.
if ! grep -Eq '^@kv_cache: [1-9][0-9]* prefetches, [1-9][0-9]* offloads, arena [1-9][0-9]* bytes$' <<<"$out"; then
  echo "check-consumer: unexpected output from ho-plan" >&2
  exit 1
fi
echo "check-consumer: ok"
