// While its plan makes compute wait, ho-plan-offload also tries every plan
// one decision away on the simulator and keeps a faster one that fits
// (docs/Planning.md, "One decision at a time: local search").
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=17MB" --ho-report="hw=%S/Inputs/round-numbers.json budget=17MB" 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=17MB local-search=false" --ho-report="hw=%S/Inputs/round-numbers.json budget=17MB" 2>&1 | FileCheck %s --check-prefix=GREEDY

// A small input kept on the device, and an early store. At 1 MB per ms
// over the pool link and 1 TFLOP/s, %a (14 MB) cannot stay through "e",
// whose 7 MB result would take the live bytes past 17 MB, nor come back
// before "e" ends. Its store is issued right after "a" made it (3 ms) and
// overlaps "b", "c" and "d", which only read it (10.05 ms); compute waits
// 3.95 ms for it before "e" (until 17 ms), then 14 ms for the fetch before
// "f". With 17.05 ms of compute the step is 35.0 ms, the deadline bound.
// (Stored after "d", its last use before the gap, the store would end at
// 27.05 ms and the step take 45.05 ms.) %y and %w (0.9 MB) come from the
// pool while "a" runs and cost nothing. The plan built gap by gap also
// passes %x (16 KB) from the pool, which saves no memory anywhere it is
// needed, and "a" waits 16 us for it: 35.016 ms. Keeping %x is one
// decision away.
// CHECK-LABEL: @kept_inputs simulation
// CHECK:       step time       35.000 ms
// CHECK:       stalls          17.950 ms in 2 stalls
// CHECK:       gap to bound    +0.0%
// CHECK-LABEL: func.func @kept_inputs(%arg0: tensor<4000xf32>,
// CHECK-SAME:    %arg1: !ho.remote<tensor<200000xf32>>
// CHECK-SAME:    %arg2: !ho.remote<tensor<25000xf32>>
// CHECK-NOT:     ho.prefetch %arg0
// CHECK:         %[[A:.+]] = ho.compute "a"(%arg0)
// CHECK-NEXT:    %[[STORED:.+]] = ho.offload %[[A]]
// CHECK:         ho.compute "b"({{.*}}, %[[A]])
// CHECK:         ho.compute "d"({{.*}}, %[[A]])
// CHECK-NEXT:    ho.wait_offload %[[STORED]]
// CHECK-NEXT:    ho.compute "e"
// CHECK-NEXT:    %[[BACK:.+]] = ho.prefetch %[[STORED]]
// CHECK-NEXT:    %[[FETCHED:.+]] = ho.await %[[BACK]]
// CHECK-NEXT:    ho.compute "f"(%[[FETCHED]])

// GREEDY-LABEL: @kept_inputs simulation
// GREEDY:       step time       35.016 ms
// GREEDY:       stalls          17.966 ms in 3 stalls
// GREEDY-LABEL: func.func @kept_inputs(%arg0: !ho.remote<tensor<4000xf32>> {ho.placed_by_plan},
// GREEDY:         %[[X:.+]] = ho.prefetch %arg0
// GREEDY:         %[[FETCHED:.+]] = ho.await %[[X]]
// GREEDY-NEXT:    ho.compute "a"(%[[FETCHED]])
func.func @kept_inputs(%x: tensor<4000xf32>, %y: tensor<200000xf32>,
                       %w: tensor<25000xf32> {ho.role = "weight"}) -> tensor<70000xf32> {
  %a = ho.compute "a"(%x) {flops = 3000000000 : i64} : (tensor<4000xf32>) -> tensor<3500000xf32>
  %b = ho.compute "b"(%w, %y, %a) {flops = 3000000000 : i64} : (tensor<25000xf32>, tensor<200000xf32>, tensor<3500000xf32>) -> tensor<60000xf32>
  %c = ho.compute "c"(%b) {flops = 50000000 : i64} : (tensor<60000xf32>) -> tensor<40000xf32>
  %d = ho.compute "d"(%c, %x, %a) {flops = 7000000000 : i64} : (tensor<40000xf32>, tensor<4000xf32>, tensor<3500000xf32>) -> tensor<16000xf32>
  %e = ho.compute "e"(%c) {flops = 500000000 : i64} : (tensor<40000xf32>) -> tensor<1750000xf32>
  %f = ho.compute "f"(%a) {flops = 3500000000 : i64} : (tensor<3500000xf32>) -> tensor<70000xf32>
  return %f : tensor<70000xf32>
}
