#!/usr/bin/env bash
# Runs each MLIR file's plan for real at several budgets, at the planned
# link bandwidth and at half of it, with integrity checking on, and prints
# one line per run: whether every result was bit-identical to the program.
# Budgets: 90/70/50% of the file's peak, and 75/50/25% of the way from its
# memory bound to its peak (both from `compare --policies none`). A budget
# below the memory bound is refused by the planner, at the op that needs it.
#
#   utils/bit-identical-survey.sh BUILD_DIR FILE...
set -uo pipefail
tool="$1/bin/hyperoffload"
shift
json=$(mktemp)
trap 'rm -f "$json"' EXIT
for file in "$@"; do
  if ! "$tool" compare "$file" --budget 1TB --policies none --json "$json" >/dev/null 2>&1; then
    echo "$(basename "$file"): compare failed"
    continue
  fi
  read -r peak bound < <(python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
print(d['baseline']['peak_footprint_bytes'], d['lower_bounds']['memory_bytes'])" "$json")
  budgets=()
  for percent in 90 70 50; do budgets+=($((peak * percent / 100))); done
  for percent in 75 50 25; do budgets+=($((bound + (peak - bound) * percent / 100))); done
  for budget in "${budgets[@]}"; do
    for scale in 1 0.5; do
      output=$("$tool" run "$file" --budget "${budget}B" --repeat 1 --opt-level 1 \
        --link-scale "$scale" 2>&1)
      status=$?
      summary=$(echo "$output" | grep -E "^(results|integrity):|error:" | head -2 | tr '\n' ' ')
      echo "$(basename "$file") peak=$peak bound=$bound budget=$budget link-scale=$scale rc=$status | $summary"
    done
  done
done
