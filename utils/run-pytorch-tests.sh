#!/usr/bin/env bash
# Runs the PyTorch importer's tests (python/tests) with a Python that has
# torch and torchvision: the first of python3 and Debian's /usr/bin/python3
# (where python3-torch installs) that imports both. Exits 77, which ctest
# reports as skipped, where neither has them.
#
#   utils/run-pytorch-tests.sh BUILD_DIR [unittest arguments]
set -uo pipefail

build_dir=$(cd "${1:-build}" && pwd)
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)

for python in python3 /usr/bin/python3; do
  if "$python" -c "import torch, torchvision" 2>/dev/null; then
    HYPEROFFLOAD_BIN="$build_dir/bin" exec "$python" -m unittest discover \
      -s "$root/python/tests" "$@"
  fi
done
echo "run-pytorch-tests: skipped: no Python here imports torch and torchvision" \
     "(utils/install-deps.sh --torch installs Debian's python3-torch and" \
     "python3-torchvision)"
exit 77
