#!/usr/bin/env bash
# Applies clang-format (LLVM style, see .clang-format) to every C++ source.
# With --check, changes nothing and fails when a file is not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files --cached --others --exclude-standard \
  -- '*.h' '*.cpp' | sort)
[ ${#files[@]} -eq 0 ] && exit 0

if [ "${1:-}" = "--check" ]; then
  clang-format --dry-run --Werror "${files[@]}"
  echo "clang-format: ${#files[@]} files formatted"
else
  clang-format -i "${files[@]}"
fi
