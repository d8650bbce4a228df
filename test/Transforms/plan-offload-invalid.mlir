// Requests no schedule can meet get a diagnostic at the op that rules them
// out.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B" -verify-diagnostics -o /dev/null
// RUN: not hyperoffload-opt %s --ho-plan-offload="budget=lots" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not hyperoffload-opt %s --ho-plan-offload="hw=no-such-preset" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HW

// Two 1 MB operands must be on the device together: a 1.5 MB budget cannot
// hold them, whatever the schedule.
func.func @infeasible(%a: tensor<250000xf32>, %b: tensor<250000xf32>) -> tensor<4xf32> {
  // expected-error @below {{budget 1.50 MB is below what this op needs at once: 2.00 MB (500.02 KB more); no schedule fits}}
  %y = ho.compute "use"(%a, %b) : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// BUDGET: error: {{.*}}.mlir: invalid budget option: invalid memory budget 'lots'
// HW: error: {{.*}}.mlir: invalid hw option: unknown target preset 'no-such-preset'
