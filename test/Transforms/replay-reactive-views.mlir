// A view of an evicted buffer is made again of the fetched copy, right
// before the op that reads it.
// RUN: hyperoffload-opt %s --ho-replay-reactive="hw=h200-pcie5 budget=14MB allocator=expandable" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-replay-reactive="hw=h200-pcie5 budget=14MB allocator=expandable" | hyperoffload-opt --ho-verify-schedule="hw=h200-pcie5"

// CHECK: %[[A:.*]] = ho.compute "a"
// CHECK: %[[R:.*]] = ho.offload %[[A]]
// CHECK: ho.wait_offload %[[R]]
// CHECK: %[[F:.*]] = ho.prefetch %[[R]]
// CHECK: %[[D:.*]] = ho.await %[[F]]
// CHECK: %[[V:.*]] = tensor.expand_shape %[[D]]
// CHECK: ho.compute "c"(%[[V]],
func.func @f(%x: tensor<1048576xf32>, %w: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = ho.compute "a"(%x) : (tensor<1048576xf32>) -> tensor<1048576xf32>
  %v = tensor.expand_shape %a [[0, 1]] output_shape [1024, 1024] : tensor<1048576xf32> into tensor<1024x1024xf32>
  %b = ho.compute "b"(%w) : (tensor<1048576xf32>) -> tensor<1048576xf32>
  %b2 = ho.compute "b2"(%b) : (tensor<1048576xf32>) -> tensor<1048576xf32>
  %c = ho.compute "c"(%v, %b2) : (tensor<1024x1024xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  return %c : tensor<1048576xf32>
}
