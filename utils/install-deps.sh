#!/usr/bin/env bash
# Installs the Debian 12 packages HyperOffload builds and tests with.
# Idempotent: prints nothing and changes nothing when all are present.
#
#   utils/install-deps.sh            # what the build needs
#   utils/install-deps.sh --browser  # and Chromium, for the HTML render test
#   utils/install-deps.sh --clang    # and clang with its sanitizer runtimes
#   utils/install-deps.sh --torch    # and PyTorch with torchvision, for the
#                                    # PyTorch importer's tests
set -euo pipefail

packages=(
  cmake ninja-build g++ make python3 git ccache clang-format
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libfmt-dev libcli11-dev libgtest-dev libbenchmark-dev
)
for flag in "$@"; do
  case "$flag" in
    --browser) packages+=(chromium) ;;
    --clang) packages+=(clang libclang-rt-14-dev) ;;
    --torch) packages+=(python3-torch python3-torchvision) ;;
    *) echo "install-deps: unknown option '$flag'" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
