// A store may leave while later ops still read the value it copies: the
// data is immutable from its last write on, so the copy overlaps those
// reads and the buffer is free as soon as the last one ends
// (docs/Planning.md, "Timing", early stores).
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=12MB" --ho-report="hw=%S/Inputs/round-numbers.json budget=12MB allocator=static" 2>&1 | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=12MB policy=exact" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT

// At 1 TFLOP/s and 1 MB per ms each way, with a 12 MB budget and %x
// (1 MB) on the device throughout. "a" makes %a (8 MB) in [0, 1] ms; "b",
// "h" and "c" run in [1, 5], [5, 9] and [9, 13]. "d" makes 8 MB while %c
// (1 MB) is live: %a must be off the device during "d" and "e" (18 MB
// otherwise). Its store takes 8 ms. Issued after "c", its last use before
// the gap, it would end at 21 ms and "d" would wait 8 ms. To end with "c"
// it must start by 5 ms: it is issued after "b", the last op that ends by
// then, and overlaps "h" and "c", which reads %a. (Issued after "a", it
// would free nothing sooner and take the link 4 ms earlier.) %a comes
// back in 8 ms while "g" runs ([17, 25] ms, 11 MB live) and nothing waits:
// 26 ms, the compute alone. The arena places "d"'s result where %a was:
// the wait for the store that the offsets add before "d" costs nothing.
// CHECK-LABEL: @early_store simulation
// CHECK:       step time       26.000 ms
// CHECK:       stalls          0.000 us in 0 stalls
// CHECK:       peak live       11.00 MB of a 12.00 MB budget
// CHECK:       gap to bound    +0.0%
// CHECK-LABEL: @written_in_place simulation
// CHECK:       step time       30.000 ms
// CHECK:       stalls          4.000 ms in 1 stalls
// CHECK-LABEL: func.func @early_store
// CHECK:         %[[A:.+]] = ho.compute "a"
// CHECK-NEXT:    ho.compute "b"(%[[A]])
// CHECK-NEXT:    %[[STORED:.+]] = ho.offload %[[A]]
// CHECK-NEXT:    ho.compute "h"
// CHECK-NEXT:    ho.compute "c"(%[[A]],
// CHECK-NEXT:    ho.wait_offload %[[STORED]]
// CHECK-NEXT:    ho.compute "d"
// CHECK-NEXT:    ho.compute "e"
// CHECK-NEXT:    %[[BACK:.+]] = ho.prefetch %[[STORED]]
// CHECK-NEXT:    ho.compute "g"
// CHECK-NEXT:    %[[FETCHED:.+]] = ho.await %[[BACK]]
// CHECK-NEXT:    ho.compute "f"(%[[FETCHED]],
// EXACT: remark: exact plan: optimal, 26.000 ms a step
func.func @early_store(%x: tensor<250000xf32>) -> tensor<250000xf32> {
  %a = ho.compute "a"(%x) {flops = 1000000000 : i64} : (tensor<250000xf32>) -> tensor<2000000xf32>
  %b = ho.compute "b"(%a) {flops = 4000000000 : i64} : (tensor<2000000xf32>) -> tensor<250000xf32>
  %h = ho.compute "h"(%b) {flops = 4000000000 : i64} : (tensor<250000xf32>) -> tensor<250000xf32>
  %c = ho.compute "c"(%a, %h) {flops = 4000000000 : i64} : (tensor<2000000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  %d = ho.compute "d"(%c) {flops = 2000000000 : i64} : (tensor<250000xf32>) -> tensor<2000000xf32>
  %e = ho.compute "e"(%d) {flops = 2000000000 : i64} : (tensor<2000000xf32>) -> tensor<250000xf32>
  %g = ho.compute "g"(%e) {flops = 8000000000 : i64} : (tensor<250000xf32>) -> tensor<250000xf32>
  %f = ho.compute "f"(%a, %g) {flops = 1000000000 : i64} : (tensor<2000000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  return %f : tensor<250000xf32>
}

// The same, but "h" writes %a in place: the data is final only after
// "h" (9 ms), and the store cannot leave before it. It ends at 17 ms:
// "d" waits 4 ms, and everything after it runs 4 ms later, 30 ms in all.
// CHECK-LABEL: func.func @written_in_place
// CHECK:         %[[W:.+]] = ho.compute "h"
// CHECK-NEXT:    %[[STORED:.+]] = ho.offload %[[W]]
// CHECK-NEXT:    ho.compute "c"(%[[W]],
// CHECK-NEXT:    ho.wait_offload %[[STORED]]
// CHECK-NEXT:    ho.compute "d"
// EXACT: remark: exact plan: optimal, 30.000 ms a step
func.func @written_in_place(%x: tensor<250000xf32>) -> tensor<250000xf32> {
  %a = ho.compute "a"(%x) {flops = 1000000000 : i64} : (tensor<250000xf32>) -> tensor<2000000xf32>
  %b = ho.compute "b"(%a) {flops = 4000000000 : i64} : (tensor<2000000xf32>) -> tensor<250000xf32>
  %w = ho.compute "h"(%a, %b) {flops = 4000000000 : i64, tied_operands = array<i64: 0>} : (tensor<2000000xf32>, tensor<250000xf32>) -> tensor<2000000xf32>
  %c = ho.compute "c"(%w, %b) {flops = 4000000000 : i64} : (tensor<2000000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  %d = ho.compute "d"(%c) {flops = 2000000000 : i64} : (tensor<250000xf32>) -> tensor<2000000xf32>
  %e = ho.compute "e"(%d) {flops = 2000000000 : i64} : (tensor<2000000xf32>) -> tensor<250000xf32>
  %g = ho.compute "g"(%e) {flops = 8000000000 : i64} : (tensor<250000xf32>) -> tensor<250000xf32>
  %f = ho.compute "f"(%w, %g) {flops = 1000000000 : i64} : (tensor<2000000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  return %f : tensor<250000xf32>
}
