// Paged mode: vLLM's PagedAttention runtime. KV caches move block by block
// on demand; everything else stays on the device. On the round-numbers
// target 1 MB blocks move in 1 ms.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json mode=paged allocator=paged block-size=1MB budget=4MB" -split-input-file -verify-diagnostics -o /dev/null | FileCheck %s
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json mode=paged" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALLOCATOR
// RUN: not hyperoffload-opt %s --ho-report="allocator=paged block-size=0.5" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK

// Two 2 MB caches and a 1 MB weight in four blocks: the second cache starts
// with one block on the device. attn1 swaps in its other block, after
// append0's cache gives one up (written, so copied out first); attn0 swaps
// it back, and the second cache drops a block it has a current copy of.
// CHECK-LABEL: @two_caches simulation on round-numbers: paged, paged allocator
// CHECK:      step time       3.000 ms
// CHECK:      stalls          3.000 ms in 3 stalls
// CHECK:      allocator       0 stalls
// CHECK:      runtime         2 fetches, 2 evictions
// CHECK:      blocks          1.00 MB each
// CHECK:      peak live       4.00 MB of a 4.00 MB budget
// CHECK:      out of memory   no
// CHECK:      traffic         pool -> device   2.00 MB in 2 transfers
// CHECK-NEXT: traffic         device -> pool   1.00 MB in 1 transfers
// ALLOCATOR: error: paged mode moves KV caches in fixed-size blocks: simulate it with the paged allocator, not the caching one
// BLOCK: error: invalid block-size option '0.5': expected a size with a unit, such as 64KiB
func.func @two_caches(%w: tensor<250000xf32>,
                      %k0: tensor<500000xf32> {ho.role = "kv_cache"},
                      %k1: tensor<500000xf32> {ho.role = "kv_cache"})
    -> (tensor<500000xf32>, tensor<500000xf32>) {
  %a = ho.compute "append0"(%k0) {tied_operands = array<i64: 0>, flops = 0 : i64, bytes = 0 : i64}
      : (tensor<500000xf32>) -> tensor<500000xf32>
  %b = ho.compute "attn1"(%k1, %w) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<500000xf32>, tensor<250000xf32>) -> tensor<0xf32>
  %c = ho.compute "attn0"(%a) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<500000xf32>) -> tensor<0xf32>
  return %a, %k1 : tensor<500000xf32>, tensor<500000xf32>
}

// -----

// Only KV caches move: with no cache to give up blocks, a budget below what
// the step needs is out of memory.
// CHECK-LABEL: @no_cache
// CHECK: runtime         0 fetches, 0 evictions
// CHECK: out of memory   yes, first at {{.*}}report-paged.mlir:[[# @LINE + 2]]:8
func.func @no_cache(%w: tensor<250000xf32>) -> tensor<1250000xf32> {
  %y = ho.compute "big"(%w) : (tensor<250000xf32>) -> tensor<1250000xf32>
  return %y : tensor<1250000xf32>
}

// -----

func.func @planned(%x: tensor<4xf32>) {
  // expected-error @below {{paged mode simulates an unplanned function, but it already holds explicit transfers; simulate it as written}}
  %r = ho.offload %x : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
  return
}
