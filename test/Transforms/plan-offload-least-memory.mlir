// ho-plan-offload{least-memory}: the plan with the least device memory, on
// the round-numbers target (1e9 FLOPs or 1 MB over the pool link take 1 ms;
// tensor<250000xf32> is 1 MB). The pass falls back to it when no other plan
// fits; here it is asked for.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=4000000B least-memory" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=4000000B least-memory" | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json budget=4000000B" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: not hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=4000000B least-memory policy=naive" -o /dev/null 2>&1 | FileCheck %s --check-prefix=POLICY

// Every argument stays in the pool until its use, and the weight is fetched
// again for its second use (no store: the pool's copy is current). %a is
// stored after its last use before its gap, and %b and %d go back to the
// caller in the pool. Compute waits for a store only where the memory is
// needed: "c" holds %a (still copying), %b and %c, 3 MB, and need not wait;
// "d" needs 4 MB with %b gone, so it waits for %b's store. Each op holds at
// most 3, 3, 3 and 4 MB: the peak is the memory lower bound (op "d").
// Without offload the peak is 6 MB (the arguments and the returned %b
// stay).
// CHECK-LABEL: func.func @serial
// CHECK-SAME: (%[[X:.+]]: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan}, %[[W:.+]]: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "weight"})
// CHECK-SAME: -> (!ho.remote<tensor<250000xf32>>, !ho.remote<tensor<250000xf32>>)
// CHECK-DAG: %[[FX:.+]] = ho.prefetch %[[X]]
// CHECK-DAG: %[[FW:.+]] = ho.prefetch %[[W]]
// CHECK-DAG: %[[TX:.+]] = ho.await %[[FX]]
// CHECK-DAG: %[[TW:.+]] = ho.await %[[FW]]
// CHECK: %[[A:.+]] = ho.compute "a"(%[[TX]], %[[TW]])
// CHECK-NEXT: %[[B:.+]] = ho.compute "b"(%[[A]])
// CHECK-NEXT: %[[SA:.+]] = ho.offload %[[A]]
// CHECK-NEXT: %[[C:.+]] = ho.compute "c"(%[[B]])
// CHECK-NEXT: %[[SB:.+]] = ho.offload %[[B]]
// CHECK-NEXT: ho.wait_offload %[[SB]]
// CHECK-DAG: %[[FW2:.+]] = ho.prefetch %[[W]]
// CHECK-DAG: %[[FA:.+]] = ho.prefetch %[[SA]]
// CHECK-DAG: %[[TW2:.+]] = ho.await %[[FW2]]
// CHECK-DAG: %[[TA:.+]] = ho.await %[[FA]]
// CHECK: %[[D:.+]] = ho.compute "d"(%[[C]], %[[TW2]], %[[TA]])
// CHECK-NEXT: %[[SD:.+]] = ho.offload %[[D]]
// CHECK-NEXT: return %[[SD]], %[[SB]]
// The copies run one at a time in each direction: x and w in (0-2 ms),
// a (2-3), b (3-4), c (4-5) while %a goes out (4-5), %b out (5-6) while
// compute waits, w and a back in (6-8), d (8-9), %d out (9-10). Six 1 ms
// waits: two fetches at entry, the store of %b, two fetches before "d",
// and the last store.
// REPORT: step time       10.000 ms
// REPORT-NEXT: compute         4.000 ms
// REPORT-NEXT: stalls          6.000 ms in 6 stalls
// REPORT: peak live       4.00 MB of a 4.00 MB budget
// REPORT: memory bound    4.00 MB
// POLICY: error: {{.*}}.mlir: least-memory is a plan of policy=hyperoffload, not naive
func.func @serial(%x: tensor<250000xf32>, %w: tensor<250000xf32> {ho.role = "weight"})
    -> (tensor<250000xf32>, tensor<250000xf32>) {
  %a = ho.compute "a"(%x, %w) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  %b = ho.compute "b"(%a) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<250000xf32>
  %c = ho.compute "c"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<250000xf32>
  %d = ho.compute "d"(%c, %w, %a) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  return %d, %b : tensor<250000xf32>, tensor<250000xf32>
}
