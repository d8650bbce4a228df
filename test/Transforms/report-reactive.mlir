// Reactive mode: a runtime without a plan.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json mode=reactive allocator=ideal budget=3072B" -split-input-file -verify-diagnostics -o /dev/null | FileCheck %s

// Three 1 KiB buffers fit in 3 KiB. Each new one evicts the least recently
// used (a copy-out, since computed values have no copy in the pool), and a
// later use fetches it back; every copy blocks compute.
// CHECK-LABEL: @lru simulation on round-numbers: reactive, ideal allocator
// CHECK:      stalls          {{.*}} in 6 stalls
// CHECK:      runtime         3 fetches, 3 evictions
// CHECK:      peak live       3.07 KB of a 3.07 KB budget
// CHECK:      out of memory   no
// CHECK:      traffic         pool -> device   3.07 KB in 3 transfers
// CHECK-NEXT: traffic         device -> pool   3.07 KB in 3 transfers
func.func @lru() {
  %a = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
  %b = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
  %c = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<256xf32>
  %d = ho.compute "k"(%b) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %e = ho.compute "k"(%c) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %z1 = ho.compute "k"(%a) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<0xf32>
  %z2 = ho.compute "k"(%b) {flops = 0 : i64, bytes = 0 : i64} : (tensor<256xf32>) -> tensor<0xf32>
  %z3 = ho.compute "k"(%c, %d, %e) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<0xf32>
  return
}

// -----

// More than the budget in one op: nothing left to evict.
// CHECK-LABEL: @too_big
// CHECK: out of memory   yes, first at {{.*}}report-reactive.mlir:[[# @LINE + 2]]:8
func.func @too_big(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %y = ho.compute "k"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

func.func @planned(%x: tensor<4xf32>) {
  // expected-error @below {{reactive mode simulates an unplanned function, but it already holds explicit transfers; simulate it as written}}
  %r = ho.offload %x : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
  return
}
