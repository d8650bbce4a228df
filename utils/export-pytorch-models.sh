#!/usr/bin/env bash
# Exports the PyTorch models behind the imported scenarios (`hyperoffload
# model list`) into models/pytorch, which the build embeds in the tools.
#
#   utils/export-pytorch-models.sh          # rewrite models/pytorch/*.mlir
#   utils/export-pytorch-models.sh --check  # fail if they are out of date
#
# Needs a Python with torch and torchvision (utils/install-deps.sh --torch);
# --check exits 77 (skipped) without one.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/models/pytorch"
check=false
[ "${1:-}" = "--check" ] && check=true

python=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c "import torch, torchvision" 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "export-pytorch-models: no Python here imports torch and torchvision" \
       "(utils/install-deps.sh --torch)"
  $check && exit 77
  exit 1
fi

# FILE then the export arguments; the first line of each file records them.
models=(
  "resnet50-train.mlir torchvision.models:resnet50 --input 256x3x224x224
     --mode train --dtype bf16 --name resnet50"
  "vit-b16-train.mlir torchvision.models:vit_b_16 --input 128x3x224x224
     --mode train --dtype bf16 --name vit_b_16"
  "llama3-8b-decoder-train.mlir hyperoffload_torch.models:llama_decoder
     --arg layers=8 --input 1x4096x4096 --mode train --dtype bf16
     --name llama3_8b_decoder"
)

# Another torch traces another graph: compare only with the one that wrote
# the files.
version=$("$python" -c "import torch; print(torch.__version__)")
recorded=$(sed -n 's|^// With torch ||p' "$out/resnet50-train.mlir")
if $check && [ "$version" != "$recorded" ]; then
  echo "export-pytorch-models: skipped: models/pytorch was exported with torch" \
       "$recorded, this Python has $version"
  exit 77
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
stale=0
for model in "${models[@]}"; do
  read -r -a words <<<"$(echo $model)"
  file=${words[0]}
  (cd "$root/python" &&
     "$python" -m hyperoffload_torch export "${words[@]:1}" -q \
       -o "$scratch/$file")
  if $check; then
    if ! cmp -s "$scratch/$file" "$out/$file"; then
      echo "models/pytorch/$file is out of date: run utils/export-pytorch-models.sh"
      stale=1
    fi
  else
    cp "$scratch/$file" "$out/$file"
    echo "wrote models/pytorch/$file"
  fi
done
exit $stale
