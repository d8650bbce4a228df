// Without a budget, a plan is for the device's whole HBM, where this
// function fits and nothing moves; the pass says so once, at the first
// function, instead of leaving the IR unchanged unasked. The baselines
// offload by their own rules and need no budget.
// RUN: hyperoffload-opt %s --ho-plan-offload -o /dev/null 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload -o /dev/null 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="budget=64GiB" -o /dev/null 2>&1 | count 0
// RUN: hyperoffload-opt %s --ho-plan-offload="policy=naive" -o /dev/null 2>&1 | count 0

// CHECK: plan-offload-no-budget.mlir:[[@LINE+2]]:1: remark: no budget given: planning for the whole HBM of 'ascend910c-supernode', {{.*}}; budget= plans for less
// CHECK-NOT: remark
func.func @first(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = ho.compute "relu"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}

func.func @second(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = ho.compute "relu"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}
