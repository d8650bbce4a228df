// ho-refine-order on cases computed by hand. The round-numbers target
// computes 1e9 FLOPs in 1 ms and moves 1 MB (tensor<250000xf32>) over its
// pool link in 1 ms each way.
// RUN: hyperoffload-opt %s --ho-refine-order="hw=%S/Inputs/round-numbers.json budget=1500000B report=true" -split-input-file -verify-diagnostics | FileCheck %s
// RUN: hyperoffload-opt %s --ho-refine-order="hw=%S/Inputs/round-numbers.json budget=1500000B" -split-input-file | hyperoffload-opt --ho-verify-schedule="hw=%S/Inputs/round-numbers.json budget=1500000B" -split-input-file -o /dev/null
// RUN: not hyperoffload-opt %s --ho-refine-order="budget=lots" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET

// BUDGET: error: invalid budget option: invalid memory budget 'lots'

// The copy takes 1 ms and is awaited at once: compute waits 1 ms. "b" does
// not need the copy, so it moves before the await and hides it exactly:
// 3 ms become 2 ms.
// CHECK-LABEL: func.func @stall_removed
// CHECK: %[[F:.+]] = ho.prefetch
// CHECK-NEXT: ho.compute "b"
// CHECK-NEXT: %[[T:.+]] = ho.await %[[F]]
// CHECK-NEXT: ho.compute "a"(%[[T]])
// expected-remark @below {{refined order of @stall_removed: step time 3.000 -> 2.000 ms, peak 1000032 -> 1000048 bytes; 1 ops hoisted over awaits, 0 sunk past the peak}}
func.func @stall_removed(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %a = ho.compute "a"(%t) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %b = ho.compute "b"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Only half the stall can be hidden: "c" needs "a", which needs the copy,
// and "w" overwrites %y in place while "a" still reads it. Only "b" moves.
// CHECK-LABEL: func.func @dependences_stay
// CHECK: ho.prefetch
// CHECK-NEXT: ho.compute "b"
// CHECK-NEXT: ho.await
// CHECK-NEXT: ho.compute "a"
// CHECK-NEXT: ho.compute "c"
// CHECK-NEXT: ho.compute "w"
// expected-remark @below {{step time 4.500 -> 4.000 ms}}
func.func @dependences_stay(%x: tensor<4xf32>, %y: tensor<4xf32>,
                            %r: !ho.remote<tensor<250000xf32>>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %a = ho.compute "a"(%t, %y) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = ho.compute "c"(%a) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %w = ho.compute "w"(%y) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "b"(%x) {flops = 500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  return %c, %w, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Nothing passes an op with unknown side effects.
// CHECK-LABEL: func.func @barrier
// CHECK: ho.await
// CHECK-NEXT: ho.compute "a"
// CHECK-NEXT: call @log
// CHECK-NEXT: ho.compute "b"
func.func private @log()
// expected-remark @below {{step time 3.000 -> 3.000 ms}}
func.func @barrier(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %a = ho.compute "a"(%t) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  func.call @log() : () -> ()
  %b = ho.compute "b"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// Hoisting "b" would hide the stall, but its 1 MB result would then be live
// next to the 1 MB copy, over the 1.5 MB budget: the order stays.
// CHECK-LABEL: func.func @budget_holds
// CHECK: ho.await
// CHECK-NEXT: ho.compute "a"
// CHECK-NEXT: ho.compute "b"
// expected-remark @below {{step time 4.000 -> 4.000 ms, peak 1000048 -> 1000048 bytes; 0 ops hoisted}}
func.func @budget_holds(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %a = ho.compute "a"(%t) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %b = ho.compute "b"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %c = ho.compute "c"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  return %a, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// %early is created long before its use; at the peak it sits next to %p.
// Sunk to right before its use, it is never live with %p: the peak drops
// from 2 MB to 1 MB at the same step time.
// CHECK-LABEL: func.func @peak_lowered
// CHECK: ho.compute "peak"
// CHECK-NEXT: ho.compute "use_p"
// CHECK-NEXT: ho.compute "early"
// CHECK-NEXT: ho.compute "use_early"
// expected-remark @below {{step time 4.000 -> 4.000 ms, peak 2000032 -> 1000048 bytes; 0 ops hoisted over awaits, 1 sunk past the peak}}
func.func @peak_lowered(%x: tensor<4xf32>) -> tensor<4xf32> {
  %early = ho.compute "early"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %p = ho.compute "peak"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %q = ho.compute "use_p"(%p) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %u = ho.compute "use_early"(%early, %q) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %u : tensor<4xf32>
}
