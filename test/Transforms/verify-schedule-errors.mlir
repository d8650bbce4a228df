// Bad options of ho-verify-schedule: each error says what is wrong.
// RUN: not hyperoffload-opt %s --ho-verify-schedule="budget=2x" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not hyperoffload-opt %s --ho-verify-schedule="budget=1.5" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FRACTION
// RUN: not hyperoffload-opt %s --ho-verify-schedule="budget=0.5B" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not hyperoffload-opt %s --ho-verify-schedule="hw=no-such-preset" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRESET

// BUDGET: error: {{.*}}.mlir: invalid budget option: invalid memory budget '2x': unknown unit 'x'
// FRACTION: error: {{.*}}.mlir: invalid budget option: invalid memory budget '1.5': a plain number is a fraction of the capacity and must not exceed 1
// ZERO: error: {{.*}}.mlir: invalid budget option: invalid memory budget '0.5B': it is less than one byte
// PRESET: error: {{.*}}.mlir: invalid hw option: unknown target preset 'no-such-preset'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
