// Paged mode: vLLM's PagedAttention runtime with a layer-wise KV connector.
// KV caches that do not fit the block pool beside the weights and the
// activations are loaded one layer ahead of their use, and only the blocks
// a step writes go back. On the round-numbers target 1 MB moves in 1 ms.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json mode=paged allocator=paged block-size=100KB budget=3.2MB" -split-input-file -verify-diagnostics -o /dev/null | FileCheck %s
// RUN: not hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json mode=paged" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALLOCATOR
// RUN: not hyperoffload-opt %s --ho-report="allocator=paged block-size=0.5" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCK

// Three 1 MB caches, each appended to in 1 ms, beside a 1 MB weight and a
// 4 KB input: 11 of the 32 blocks. No cache fits once two are set aside
// for loads in flight and one block for a store. %k0 loads at the start
// (append0 waits 1 ms for it), %k1 and %k2 each one layer ahead; every
// append dirties one block, stored back after it; the last store outlasts
// compute by 0.1 ms.
// CHECK-LABEL: @three_layers simulation on round-numbers: paged, paged allocator
// CHECK:      step time       4.100 ms
// CHECK:      stalls          1.100 ms in 2 stalls
// CHECK:      allocator       0 stalls
// CHECK:      runtime         3 fetches, 3 evictions
// CHECK:      blocks          100.00 KB each
// CHECK:      peak live       3.20 MB of a 3.20 MB budget
// CHECK:      out of memory   no
// CHECK:      traffic         pool -> device   3.00 MB in 3 transfers
// CHECK-NEXT: traffic         device -> pool   300.00 KB in 3 transfers
// ALLOCATOR: error: paged mode moves KV caches in fixed-size blocks: simulate it with the paged allocator, not the caching one
// BLOCK: error: invalid block-size option '0.5': expected a size with a unit, such as 64KiB
func.func @three_layers(%w: tensor<250000xf32>, %x: tensor<1000xf32>,
                        %k0: tensor<250000xf32> {ho.role = "kv_cache"},
                        %k1: tensor<250000xf32> {ho.role = "kv_cache"},
                        %k2: tensor<250000xf32> {ho.role = "kv_cache"}) {
  %a0 = ho.compute "append0"(%k0, %x) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<1000xf32>) -> tensor<250000xf32>
  %a1 = ho.compute "append1"(%k1, %x) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<1000xf32>) -> tensor<250000xf32>
  %a2 = ho.compute "append2"(%k2, %x) {tied_operands = array<i64: 0>, flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<1000xf32>) -> tensor<250000xf32>
  return
}

// -----

// vLLM does not start when the weights alone exceed the budget.
// CHECK-LABEL: @too_heavy
// CHECK: runnable        no: the weights alone exceed the budget, so vLLM would not start
// CHECK: out of memory   yes
func.func @too_heavy(%w: tensor<1000000xf32>) -> tensor<4xf32> {
  %y = ho.compute "k"(%w) : (tensor<1000000xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
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
