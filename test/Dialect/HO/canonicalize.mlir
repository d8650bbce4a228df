// Generic clean-ups keep the schedule: transfers are never dropped or moved,
// while compute without uses is dead code like any pure op.
// RUN: hyperoffload-opt %s --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @unused_transfers_stay
// CHECK-NEXT: ho.offload
// CHECK-NEXT: ho.wait_offload
// CHECK-NEXT: ho.prefetch
// CHECK-NEXT: ho.await
// CHECK-NEXT: return
func.func @unused_transfers_stay(%act: tensor<8xf32>) {
  %r = ho.offload %act : tensor<8xf32> -> !ho.remote<tensor<8xf32>>
  ho.wait_offload %r : !ho.remote<tensor<8xf32>>
  %f = ho.prefetch %r : !ho.remote<tensor<8xf32>> -> !ho.future<tensor<8xf32>>
  %t = ho.await %f : !ho.future<tensor<8xf32>> -> tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @dead_compute_goes
// CHECK-NOT: ho.compute
// CHECK: return
func.func @dead_compute_goes(%x: tensor<8xf32>) {
  %y = ho.compute "relu"(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// Two prefetches of one remote value are two transfers, not one.
// CHECK-LABEL: func.func @prefetches_are_not_merged
// CHECK-COUNT-2: ho.prefetch
func.func @prefetches_are_not_merged(%r: !ho.remote<tensor<8xf32>>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %f0 = ho.prefetch %r : !ho.remote<tensor<8xf32>> -> !ho.future<tensor<8xf32>>
  %f1 = ho.prefetch %r : !ho.remote<tensor<8xf32>> -> !ho.future<tensor<8xf32>>
  %t0 = ho.await %f0 : !ho.future<tensor<8xf32>> -> tensor<8xf32>
  %t1 = ho.await %f1 : !ho.future<tensor<8xf32>> -> tensor<8xf32>
  return %t0, %t1 : tensor<8xf32>, tensor<8xf32>
}
