// The baseline policies on the KV-cache case of plan-offload.mlir.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=naive" | FileCheck %s --check-prefix=NAIVE
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B policy=distance distance-min-gap=3 distance-prefetch-lead=2" | FileCheck %s --check-prefix=DISTANCE
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json policy=naive" | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json" -o /dev/null | FileCheck %s --check-prefix=NAIVE-REPORT

// naive: the cache is fetched right before its use, with no lookahead, and
// whatever the budget.
// NAIVE-LABEL: func.func @kv_cache
// NAIVE-SAME: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "kv_cache"}
// NAIVE: ho.compute "w3"
// NAIVE-NEXT: %[[F:.+]] = ho.prefetch
// NAIVE-NEXT: %[[T:.+]] = ho.await %[[F]]
// NAIVE-NEXT: ho.compute "kv_append"(%[[T]],
// NAIVE: ho.offload
// The copy (1 ms) is fully exposed, and so is the store at the end.
// NAIVE-REPORT: step time       6.000 ms
// NAIVE-REPORT-NEXT: compute         4.000 ms
// NAIVE-REPORT-NEXT: stalls          2.000 ms in 2 stalls

// distance: gaps of at least 3 ops (the cache's first use is op 4), fetched
// 2 ops ahead of the use, counted in ops rather than time.
// DISTANCE-LABEL: func.func @kv_cache
// DISTANCE: ho.compute "w1"
// DISTANCE-NEXT: %[[F:.+]] = ho.prefetch
// DISTANCE-NEXT: ho.compute "w2"
// DISTANCE-NEXT: ho.compute "w3"
// DISTANCE-NEXT: ho.await %[[F]]
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
