// A schedule that obeys every rule passes and comes out unchanged.
// RUN: hyperoffload-opt %s --ho-verify-schedule="hw=%S/Inputs/round-numbers.json budget=3MB" | FileCheck %s

// The offload has 1.5 ms to land before the prefetch, the prefetch 1.5 ms
// before its await; at most 2 MB + 48 B are live, within the 3 MB budget.
// CHECK-LABEL: func.func @round_trip
// CHECK-NEXT:    %[[R:.+]] = ho.offload %{{.+}} :
// CHECK-NEXT:    %[[Y:.+]] = ho.compute "work"
// CHECK-NEXT:    %[[F:.+]] = ho.prefetch %[[R]] :
// CHECK-NEXT:    %[[Z:.+]] = ho.compute "work"(%[[Y]])
// CHECK-NEXT:    %[[T:.+]] = ho.await %[[F]] :
// CHECK-NEXT:    %[[G:.+]] = ho.compute "use"(%[[T]], %[[Z]])
// CHECK-NEXT:    return %[[G]]
func.func @round_trip(%x: tensor<250000xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %r = ho.offload %x : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %y = ho.compute "work"(%w) {flops = 1500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %z = ho.compute "work"(%y) {flops = 1500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %g = ho.compute "use"(%t, %z) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
