// ho-plan-offload on cases computed by hand. The round-numbers target
// computes 1e9 FLOPs in 1 ms and moves 1 MB (tensor<250000xf32>) over its
// pool link in 1 ms each way.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B" -split-input-file | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B" -split-input-file -verify-diagnostics -o /dev/null
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B" -split-input-file | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json budget=1500000B" -split-input-file -o /dev/null | FileCheck %s --check-prefix=REPORT

// A KV cache the budget cannot hold while %big is live. It stays in the pool
// until its prefetch, which is hoisted exactly far enough: the copy takes
// 1 ms and must land when kv_append starts at 3 ms, so it is issued before
// the op that starts at 2 ms, after %big has died. The updated cache goes
// back to the pool after its last use and is returned remote.
// CHECK-LABEL: func.func @kv_cache
// CHECK-SAME: %[[KV:[a-z0-9]+]]: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "kv_cache"}
// CHECK-SAME: -> (tensor<4xf32>, !ho.remote<tensor<250000xf32>>)
// CHECK: ho.compute "w1"
// CHECK: ho.compute "w2"
// CHECK: %[[F:.+]] = ho.prefetch %[[KV]]
// CHECK-NEXT: ho.compute "w3"
// CHECK-NEXT: %[[T:.+]] = ho.await %[[F]]
// CHECK-NEXT: %[[NEW:.+]] = ho.compute "kv_append"(%[[T]],
// CHECK-NEXT: %[[Y:.+]] = ho.compute "attention"
// CHECK-NEXT: %[[BACK:.+]] = ho.offload %[[NEW]] : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
// CHECK-NEXT: return %[[Y]], %[[BACK]]
// REPORT-LABEL: @kv_cache
// REPORT: step time       5.000 ms
// REPORT-NEXT: compute         4.000 ms
// REPORT-NEXT: stalls          1.000 ms in 1 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
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

// -----

// An activation used again 4 ms later, while another 1 MB activation is
// live in between: the store (1 ms) completes before %big is created, and
// the fetch (1 ms) is issued one op ahead of the use, so the round trip is
// hidden and %a is off the device exactly while %big is live.
// CHECK-LABEL: func.func @long_gap
// CHECK: %[[A:.+]] = ho.compute "produce"
// CHECK-NEXT: %[[R:.+]] = ho.offload %[[A]]
// CHECK-NEXT: ho.compute "filler"
// CHECK-NEXT: ho.compute "w1"
// CHECK-NEXT: ho.compute "w2"
// CHECK-NEXT: %[[F:.+]] = ho.prefetch %[[R]]
// CHECK-NEXT: ho.compute "w3"
// CHECK-NEXT: %[[T:.+]] = ho.await %[[F]]
// CHECK-NEXT: ho.compute "use"(%[[T]]
// REPORT-LABEL: @long_gap
// REPORT: step time       6.000 ms
// REPORT: stalls          0.000 us in 0 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
func.func @long_gap(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "produce"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %f = ho.compute "filler"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %big = ho.compute "w1"(%f) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %b = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %c = ho.compute "w3"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %y = ho.compute "use"(%a, %c) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Either 0.5 MB activation can leave to bring the peak at "w1" (1.5 MB and
// a little) under the budget. %a's store (0.5 ms) cannot complete before
// "w1" starts: the gap is too short to hide a round trip, so %a stays. %c's
// store is hidden by "w0" and its fetch by "use_a": %c leaves instead.
// CHECK-LABEL: func.func @short_gap
// CHECK: %[[C:.+]] = ho.compute "produce_c"
// CHECK-NEXT: ho.offload %[[C]]
// CHECK-NOT: ho.offload
// CHECK: return
// REPORT-LABEL: @short_gap
// REPORT: stalls          0.000 us in 0 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
func.func @short_gap(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = ho.compute "produce_c"(%x) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<125000xf32>
  %w0 = ho.compute "w0"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %a = ho.compute "produce_a"(%w0) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<125000xf32>
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<125000xf32>
  %s = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<125000xf32>) -> tensor<4xf32>
  %y = ho.compute "use_a"(%a, %s) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<125000xf32>, tensor<4xf32>) -> tensor<4xf32>
  %z = ho.compute "use_c"(%c, %y) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<125000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

// %a is not needed while %big is live, but its store (1 ms) cannot complete
// before %big is allocated, and nothing else can leave. The budget comes
// first: compute waits for the store before "w1" (ho.wait_offload). The
// fetch cannot come back while "w2" reads %big, so "use" waits for it too:
// 2 ms of stalls.
// CHECK-LABEL: func.func @wait_for_store
// CHECK: %[[A:.+]] = ho.compute "produce"
// CHECK-NEXT: %[[R:.+]] = ho.offload %[[A]]
// CHECK-NEXT: ho.wait_offload %[[R]]
// CHECK-NEXT: ho.compute "w1"
// CHECK-NEXT: ho.compute "w2"
// CHECK-NEXT: %[[F:.+]] = ho.prefetch %[[R]]
// CHECK-NEXT: %[[T:.+]] = ho.await %[[F]]
// CHECK-NEXT: ho.compute "use"(%[[T]]
// REPORT-LABEL: @wait_for_store
// REPORT: step time       5.000 ms
// REPORT: stalls          2.000 ms in 2 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
func.func @wait_for_store(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "produce"(%x) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %s = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %y = ho.compute "use"(%a, %s) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// "use_b" needs %b back while %a is still to be used again: 2 MB in a
// 1.5 MB budget. %b is stored during "w0"; %a is stored after "use_a" and
// compute waits for it (1 -> 2 ms) before %b's prefetch is issued, so that
// the copy lands in the memory %a frees: the wait comes first. %b then
// takes 2 -> 3 ms to come back ("use_b" runs 3 -> 4 ms) and %a 4 -> 5 ms:
// 5 ms, three stalls of 1 ms, and never more than 1 MB live.
// CHECK-LABEL: func.func @wait_before_fetch
// CHECK: %[[A:.+]] = ho.compute "produce_a"
// CHECK-NEXT: ho.compute "use_a"
// CHECK-NEXT: %[[RA:.+]] = ho.offload %[[A]]
// CHECK-NEXT: ho.wait_offload %[[RA]]
// CHECK-NEXT: %[[FB:.+]] = ho.prefetch
// CHECK-NEXT: %[[B:.+]] = ho.await %[[FB]]
// CHECK-NEXT: ho.compute "use_b"(%[[B]]
// REPORT-LABEL: @wait_before_fetch
// REPORT: step time       5.000 ms
// REPORT: stalls          3.000 ms in 3 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
func.func @wait_before_fetch(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = ho.compute "produce_b"(%x) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %w = ho.compute "w0"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %a = ho.compute "produce_a"(%w) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %s = ho.compute "use_a"(%a) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %t = ho.compute "use_b"(%b, %s) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = ho.compute "use_a_again"(%a, %t) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// %a is ready long before the return, and "produce_b" needs its memory. It
// goes back to the caller in the pool: stored while "work" runs (1 ms of
// 2 ms), never fetched, and returned as !ho.remote.
// CHECK-LABEL: func.func @result_returned_remote
// CHECK-SAME: -> (!ho.remote<tensor<250000xf32>>, tensor<250000xf32>)
// CHECK: %[[A:.+]] = ho.compute "produce_a"
// CHECK-NEXT: %[[R:.+]] = ho.offload %[[A]]
// CHECK-NOT: ho.prefetch
// CHECK: %[[B:.+]] = ho.compute "produce_b"
// CHECK-NEXT: return %[[R]], %[[B]] : !ho.remote<tensor<250000xf32>>, tensor<250000xf32>
// REPORT-LABEL: @result_returned_remote
// REPORT: stalls          0.000 us in 0 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
func.func @result_returned_remote(%x: tensor<4xf32>)
    -> (tensor<250000xf32>, tensor<250000xf32>) {
  %a = ho.compute "produce_a"(%x) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %w = ho.compute "work"(%x) {flops = 2000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "produce_b"(%w) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  return %a, %b : tensor<250000xf32>, tensor<250000xf32>
}

// -----

// "update" overwrites %a in place, and %a is dead after it: %t carries the
// buffer across the gap, as in @long_gap, though the buffer has two values.
// CHECK-LABEL: func.func @carried_by_result
// CHECK: %[[T:.+]] = ho.compute "update"
// CHECK-NEXT: %[[R:.+]] = ho.offload %[[T]]
// CHECK: %[[F:.+]] = ho.prefetch %[[R]]
// CHECK: %[[BACK:.+]] = ho.await %[[F]]
// CHECK-NEXT: ho.compute "use"(%[[BACK]]
// REPORT-LABEL: @carried_by_result
// REPORT: stalls          0.000 us in 0 stalls
// REPORT: peak live       1.00 MB of a 1.50 MB budget
func.func @carried_by_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "produce"(%x) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %t = ho.compute "update"(%a) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<250000xf32>
  %f = ho.compute "filler"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %big = ho.compute "w1"(%f) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %b = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %c = ho.compute "w3"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %y = ho.compute "use"(%t, %c) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Within the budget, nothing moves.
// CHECK-LABEL: func.func @fits
// CHECK-NOT: ho.offload
// CHECK-NOT: ho.prefetch
func.func @fits(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
