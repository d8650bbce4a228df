// --hyperoffload plans, assigns static offsets and verifies, for one
// hardware model and budget.
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=1500000B" | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=1500000B" | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json budget=1500000B allocator=static" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: not hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=900000B" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIGHT
// RUN: not hyperoffload-opt %s --hyperoffload="policy=lazy" -o /dev/null 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: hyperoffload-opt %s --hyperoffload="budget=1GB policy=pt2" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSES

// The order is refined for the peak before planning and for stalls after.
// PASSES: ho-refine-order{budget=1GB hide-stalls=false {{.*}}lower-peak=true
// PASSES-NEXT: ho-plan-offload{budget=1GB {{.*}}policy=pt2
// PASSES-NEXT: ho-refine-order{budget=1GB hide-stalls=true {{.*}}lower-peak=false
// PASSES-NEXT: ho-assign-offsets{allow-over-budget=false budget=1GB
// PASSES-NEXT: ho-verify-schedule{budget=1GB

// CHECK-LABEL: func.func @kv_cache
// CHECK-SAME: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "kv_cache"}
// CHECK-SAME: attributes {ho.arena_size = [[ARENA:[0-9]+]] : i64}
// CHECK: ho.prefetch {{.*}}ho.offsets = array<i64: [[OFFSET:[0-9]+]]>
// CHECK: ho.await
// CHECK: ho.offload

// The static plan runs without allocator stalls, within the budget.
// REPORT: static allocator
// REPORT: allocator       0 stalls
// REPORT: peak footprint  1.00 MB
// REPORT: out of memory   no

// Below what the step needs at once, the schedule is rejected.
// TIGHT: error:

// POLICY: Cannot find option named 'lazy'
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
