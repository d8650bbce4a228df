// policy=exact searches every plan the planner could write for the fastest
// that fits, on the simulator, and says what it proved.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=exact" 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=exact exact-cuts=false" 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=exact" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=exact exact-max-simulations=1" 2>&1 | FileCheck %s --check-prefix=GAVE-UP
// RUN: not hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=exact exact-max-gaps=1" 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not hyperoffload-opt %S/plan-offload-routed.mlir --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=3100000B policy=exact" 2>&1 | FileCheck %s --check-prefix=ROUTED

// The 1 MB KV cache cannot be on the device next to w1's 1 MB result, which
// lives until w2 ends (2 ms). Its 1 ms fetch, issued before w3, lands as w3
// ends (3 ms): no op waits. The appended cache goes back after attention,
// its last use (4 ms), and the step ends when that store lands: 5 ms. A
// store can only start after the last use before its gap, and the fetch
// cannot start before w2 has freed its operand, so no plan is faster.
// CHECK: remark: exact plan: optimal, 5.000 ms a step ({{[0-9]+}} plans simulated over {{[0-9]+}} gaps)
// CHECK-LABEL: func.func @kv_cache(%arg0
// CHECK-SAME: %[[KV:.+]]: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "kv_cache"}
// CHECK: ho.compute "w2"
// CHECK-NEXT: %[[F:.+]] = ho.prefetch %[[KV]]
// CHECK-NEXT: ho.compute "w3"
// CHECK-NEXT: %[[T:.+]] = ho.await %[[F]]
// CHECK-NEXT: %[[NEW:.+]] = ho.compute "kv_append"(%[[T]]
// CHECK-NEXT: ho.compute "attention"
// CHECK-NEXT: %[[BACK:.+]] = ho.offload %[[NEW]]
// CHECK-NEXT: return %{{.+}}, %[[BACK]]

// The pipeline keeps the plan: offsets and verification accept it.
// PIPELINE: remark: exact plan: optimal, 5.000 ms a step
// PIPELINE-NOT: error

// Stopped before the search began: the planner's own plan is the best
// found, and the warning says it is not proven.
// GAVE-UP: warning: exact plan: not proven optimal, the fastest found in {{[0-9]+}} simulated plans (5.000 ms a step); raise exact-max-simulations for a proof
// GAVE-UP: ho.offload

// TOO-MANY: error: the exact search does not take @kv_cache: it has 2 gaps that can relieve a point over the budget, more than the 1 the exact search takes (exact-max-gaps)

// ROUTED: error: the exact search does not take @moe: its routed experts or gathered blocks are picked at run time, which the exact search does not cover

func.func @kv_cache(%x: tensor<4xf32>, %kv: tensor<250000xf32> {ho.role = "kv_cache"})
    -> (tensor<4xf32>, tensor<250000xf32>) {
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %b = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %c = ho.compute "w3"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %kv2 = ho.compute "kv_append"(%kv, %c) {tied_operands = array<i64: 0>, flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<250000xf32>
  %y = ho.compute "attention"(%c, %kv2) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>, tensor<250000xf32>) -> tensor<4xf32>
  return %y, %kv2 : tensor<4xf32>, tensor<250000xf32>
}
