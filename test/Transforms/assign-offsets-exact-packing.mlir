// When no greedy order fits the budget but the peak of live bytes does, an
// exact search finds a layout within it.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json budget=64B report=true" -verify-diagnostics | FileCheck %s
// Without the budget only the greedy order runs, and it needs 68 bytes.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=GREEDY

// 64 live bytes, but every greedy order (by size, size times lifetime,
// start, lifetime or end) sets %a between %x, which is still live, and the
// buffers that come and go around it. The layout that fits puts %x at the
// top from the start: %v2 (48 bytes) then fills [0, 48) under it, %a goes
// at [48, 56), and %v4 and %v5 reuse the space of %v2 and %a.
// GREEDY: arena 68 bytes for a peak of 64 live bytes (fragmentation +6.2%)
// expected-remark @below {{static memory plan: arena 64 bytes for a peak of 64 live bytes (fragmentation +0.0%)}}
func.func @fragmented() -> tensor<5xf32> {
  // CHECK-LABEL: func.func @fragmented
  // CHECK-SAME:    attributes {ho.arena_size = 64 : i64}
  // CHECK-NEXT:    ho.compute "k"() {ho.offsets = array<i64: 0>}
  %v0 = ho.compute "k"() : () -> tensor<6xf32>
  // CHECK-NEXT:    ho.compute "k"(%{{.*}}) {ho.offsets = array<i64: 56>}
  %x = ho.compute "k"(%v0) : (tensor<6xf32>) -> tensor<2xf32>
  // CHECK-NEXT:    ho.compute "k"(%{{.*}}) {ho.offsets = array<i64: 0>}
  %v2 = ho.compute "k"(%x) : (tensor<2xf32>) -> tensor<12xf32>
  // CHECK-NEXT:    ho.compute "k"(%{{.*}}) {ho.offsets = array<i64: 48>}
  %a = ho.compute "k"(%v2) : (tensor<12xf32>) -> tensor<2xf32>
  // CHECK-NEXT:    ho.compute "k"(%{{.*}}) {ho.offsets = array<i64: 0>}
  %v4 = ho.compute "k"(%a) : (tensor<2xf32>) -> tensor<8xf32>
  // CHECK-NEXT:    ho.compute "k"(%{{.*}}, %{{.*}}) {ho.offsets = array<i64: 32>}
  %v5 = ho.compute "k"(%v4, %x) : (tensor<8xf32>, tensor<2xf32>) -> tensor<5xf32>
  return %v5 : tensor<5xf32>
}
