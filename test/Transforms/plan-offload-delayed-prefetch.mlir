// A prefetch that cannot be hidden is issued no earlier than the memory it
// holds fits the budget up to its use, so that it makes no new peak
// (docs/Planning.md, "When the links cannot hide everything").
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=9MB" --ho-report="hw=%S/Inputs/round-numbers.json budget=9MB allocator=static" 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=9MB policy=exact" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT

// At 1 MB per ms over the pool link and 1 TFLOP/s, each op takes 1 ms. The
// live bytes without %w are 6 MB at "a", 8 MB at "b" (%a and %b), 4 MB at
// "c" and 3 MB at "e". %w (4 MB) does not fit through "a" and "b" in 9 MB,
// so it comes from the pool, and its fetch takes 4 ms: more than the 3 ms
// of compute before "e", so "e" waits whenever it is issued. Issued at
// entry, "e" would wait 1 ms, but %w would be live at "a" and "b" (10 MB and
// 12 MB), a new peak over the budget. It is issued before "c", the first
// op from which every one up to "e" fits with it (8 MB at "c"): it lands at
// 6 ms, "e" waits 3 ms, and the step takes 7 ms, as long as the deadline
// bound and the exact search's optimum.
// CHECK-LABEL: @late_weight simulation
// CHECK:       step time       7.000 ms
// CHECK:       stalls          3.000 ms in 1 stalls
// CHECK:       peak live       8.00 MB of a 9.00 MB budget
// CHECK:       out of memory   no
// CHECK:       deadline bound  7.000 ms
// CHECK-LABEL: func.func @late_weight(
// CHECK-SAME:    %arg1: !ho.remote<tensor<1000000xf32>>
// CHECK:         ho.compute "a"
// CHECK-NEXT:    ho.compute "b"
// CHECK-NEXT:    %[[W:.+]] = ho.prefetch %arg1
// CHECK-NEXT:    ho.compute "c"
// CHECK-NEXT:    %[[FETCHED:.+]] = ho.await %[[W]]
// CHECK-NEXT:    ho.compute "e"(%{{.+}}, %[[FETCHED]])

// EXACT: remark: exact plan: optimal, 7.000 ms a step
func.func @late_weight(%x: tensor<1000xf32>,
                       %w: tensor<1000000xf32> {ho.role = "weight"}) -> tensor<250000xf32> {
  %a = ho.compute "a"(%x) {flops = 1000000000 : i64} : (tensor<1000xf32>) -> tensor<1500000xf32>
  %b = ho.compute "b"(%a) {flops = 1000000000 : i64} : (tensor<1500000xf32>) -> tensor<500000xf32>
  %c = ho.compute "c"(%b) {flops = 1000000000 : i64} : (tensor<500000xf32>) -> tensor<500000xf32>
  %e = ho.compute "e"(%c, %w) {flops = 1000000000 : i64} : (tensor<500000xf32>, tensor<1000000xf32>) -> tensor<250000xf32>
  return %e : tensor<250000xf32>
}
