// With allow-over-budget, an arena over the budget is a warning and the
// offsets are written anyway, so that a plan that misses the budget can
// still be run on its static memory plan and scored.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json budget=64B allow-over-budget=true" -verify-diagnostics | FileCheck %s

// expected-warning @below {{the static memory plan of @too_much_live needs 128 bytes, over the budget of 64 bytes; even its peak of 128 live bytes exceeds the budget: the schedule needs more offload}}
func.func @too_much_live(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ho.compute "relu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %a : tensor<16xf32>
}
// CHECK-LABEL: func.func @too_much_live
// CHECK-SAME:    {ho.offset = 0 : i64}
// CHECK-SAME:    attributes {ho.arena_size = 128 : i64}
// CHECK:         ho.compute "relu"(%{{.*}}) {ho.offsets = array<i64: 64>}
