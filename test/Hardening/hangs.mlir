// Transfers issued minutes into a step, once the clock's resolution is
// coarser than their last bytes take, still complete: the report, the
// pipeline and the verifier finish at once.
// RUN: hyperoffload-opt %s --split-input-file --ho-report | FileCheck %s
// RUN: hyperoffload-opt %s --split-input-file --hyperoffload=budget=0.5 | FileCheck %s --check-prefix=PLAN
// RUN: hyperoffload-opt %s --split-input-file --ho-verify-schedule | FileCheck %s --check-prefix=PLAN

// A 125 s kernel, then a 16-byte offload.
// CHECK-LABEL: @after_a_long_kernel
// CHECK: step time       125.000 s
// PLAN-LABEL: @after_a_long_kernel
func.func @after_a_long_kernel(%x: tensor<4xf32>) -> (tensor<4xf32>, !ho.remote<tensor<4xf32>>) {
  %a = ho.compute "slow"(%x) {flops = 0 : i64, bytes = 200000000000000 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %r = ho.offload %a : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
  return %a, %r : tensor<4xf32>, !ho.remote<tensor<4xf32>>
}

// -----

// Nine quintillion bytes of memory traffic: 67 days of kernel.
// CHECK-LABEL: @after_the_largest_hint
// CHECK: step time       5764607.523 s
// PLAN-LABEL: @after_the_largest_hint
func.func @after_the_largest_hint(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "x"(%x) {bytes = 9223372036854775807 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %r = ho.offload %x : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
  return %a : tensor<4xf32>
}

// -----

// A zero-sized result at the start of a live buffer overlaps nothing.
// CHECK-LABEL: @zero_sized
// PLAN-LABEL: @zero_sized
func.func @zero_sized(%x: tensor<128xf32>) -> (tensor<128xf32>, tensor<256x0x4xf32>) {
  %a, %b = ho.compute "split"(%x) : (tensor<128xf32>) -> (tensor<128xf32>, tensor<256x0x4xf32>)
  return %a, %b : tensor<128xf32>, tensor<256x0x4xf32>
}
