// ho-plan-offload also plans the body with its updates of the caller's
// state run as soon as their inputs exist, and keeps that order when its
// plan is faster. Round-numbers target: 1e9 FLOPs or 1 MB over the pool
// link take 1 ms; tensor<250000xf32> is 1 MB, tensor<125000xf32> 0.5 MB.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=3000000B" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=3000000B" | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json budget=3000000B allocator=ideal" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json budget=3000000B" -o /dev/null | FileCheck %s --check-prefix=UNPLANNED

// As written, the optimizer-like update "u" of the state %s comes after the
// chain f1..f4, which holds %x and two links (3 MB, the whole budget): %g
// must leave the device over the chain, and %s can only come in, be updated
// and go back at the end: that plan takes 7.5 ms, with three 0.5 ms waits
// for the link. Run right after
// "g", the update has the device to itself: %s comes in while "g" computes
// (0-0.5 ms), "u" updates it (1-2 ms) and it goes back while f1 computes
// (2-2.5 ms), before f2 needs the room. %g dies at "u" and nothing else
// moves: six ops, 6 ms, no stall.
// CHECK-LABEL: func.func @update_state
// CHECK-SAME: (%[[X:.+]]: tensor<250000xf32>, %[[S:.+]]: !ho.remote<tensor<125000xf32>> {ho.placed_by_plan, ho.role = "optimizer_state"})
// CHECK-SAME: -> (tensor<250000xf32>, !ho.remote<tensor<125000xf32>>)
// CHECK: %[[FS:.+]] = ho.prefetch %[[S]]
// CHECK: %[[G:.+]] = ho.compute "g"(%[[X]])
// CHECK: %[[TS:.+]] = ho.await %[[FS]]
// CHECK-NEXT: %[[U:.+]] = ho.compute "u"(%[[TS]], %[[G]])
// CHECK-NEXT: %[[SU:.+]] = ho.offload %[[U]]
// CHECK-NEXT: %[[F1:.+]] = ho.compute "f1"(%[[X]])
// CHECK-NEXT: %[[F2:.+]] = ho.compute "f2"(%[[F1]], %[[X]])
// CHECK-NEXT: %[[F3:.+]] = ho.compute "f3"(%[[F2]], %[[X]])
// CHECK-NEXT: %[[F4:.+]] = ho.compute "f4"(%[[F3]], %[[X]])
// CHECK-NEXT: return %[[F4]], %[[SU]]
// REPORT: step time       6.000 ms
// REPORT: stalls          0.000 us in 0 stalls
// REPORT: peak live       3.00 MB of a 3.00 MB budget
// Without offload, f2 to f4 hold %x, two links, %g and %s: 4 MB.
// UNPLANNED: peak live       4.00 MB
func.func @update_state(%x: tensor<250000xf32>,
                        %s: tensor<125000xf32> {ho.role = "optimizer_state"})
    -> (tensor<250000xf32>, tensor<125000xf32>) {
  %g = ho.compute "g"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<125000xf32>
  %f1 = ho.compute "f1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<250000xf32>
  %f2 = ho.compute "f2"(%f1, %x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  %f3 = ho.compute "f3"(%f2, %x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  %f4 = ho.compute "f4"(%f3, %x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  %u = ho.compute "u"(%s, %g) {flops = 1000000000 : i64, bytes = 0 : i64, tied_operands = array<i64: 0>}
      : (tensor<125000xf32>, tensor<125000xf32>) -> tensor<125000xf32>
  return %f4, %u : tensor<250000xf32>, tensor<125000xf32>
}
