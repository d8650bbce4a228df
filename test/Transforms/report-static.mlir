// The static allocator places buffers at the offsets of a plan and checks it.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json allocator=static" -split-input-file -verify-diagnostics -o /dev/null | FileCheck %s

// %a and %c never live at the same time, so they may share offset 0, below
// the argument at 32.
// CHECK-LABEL: @planned simulation on round-numbers: as-written, static allocator
// CHECK: allocator       0 stalls
// CHECK: peak live       48 B
// CHECK: peak footprint  48 B
func.func @planned(%x: tensor<4xf32> {ho.offset = 32 : i64}) -> tensor<4xf32> {
  %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "relu"(%a) {ho.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ho.compute "relu"(%b) {ho.offsets = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @overlap(%x: tensor<4xf32> {ho.offset = 0 : i64}) -> tensor<4xf32> {
  // expected-note @above {{the live buffer (16 bytes) is defined here}}
  // expected-error @below {{buffer at offset 8 (16 bytes) overlaps a buffer that is still live}}
  %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 8>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @unplanned(%x: tensor<4xf32> {ho.offset = 0 : i64}) -> tensor<4xf32> {
  // expected-error @below {{the static allocator needs an offset for this buffer (16 bytes); run ho-assign-offsets first or simulate with allocator=caching}}
  %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}
