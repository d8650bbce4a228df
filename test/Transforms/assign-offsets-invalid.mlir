// Invalid options are reported before anything is planned.
// RUN: not hyperoffload-opt %s --ho-assign-offsets="budget=lots" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not hyperoffload-opt %s --ho-assign-offsets="hw=no-such-chip" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HW
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json budget=15B" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FITS --allow-empty

// BUDGET: error: {{.*}}.mlir: invalid budget option:
// HW: error: {{.*}}.mlir: invalid hw option:
// FITS-NOT: error

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
