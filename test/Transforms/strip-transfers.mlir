// ho-strip-transfers writes the program a schedule was made from: remote
// arguments and results are tensors, transfers are gone, a slice stored
// into a remote is a tensor.insert_slice, and the plan's attributes go.
// RUN: hyperoffload-opt %s -split-input-file -verify-diagnostics --ho-strip-transfers | FileCheck %s
// The reactive runtime's replay, stripped, is the program it was made of
// again: the tier copy of %w1 folds into %w1.
// RUN: hyperoffload-opt %S/../Execution/Inputs/reactive-swap.mlir --ho-replay-reactive="hw=h200-pcie5 budget=14MB allocator=expandable" --ho-strip-transfers | FileCheck %s --check-prefix=REPLAY
// REPLAY: func.func @f(%[[W1:[a-z0-9]+]]: tensor<1048576xf32>, %[[W2:[a-z0-9]+]]: tensor<1048576xf32>, %[[X:[a-z0-9]+]]: tensor<1048576xf32>) -> tensor<1048576xf32> {
// REPLAY-NEXT: %[[A:.*]] = ho.compute "a"(%[[X]], %[[W1]])
// REPLAY-NEXT: %[[B:.*]] = ho.compute "b"(%[[A]], %[[W2]])
// REPLAY-NEXT: %[[C:.*]] = ho.compute "c"(%[[B]], %[[W1]])
// REPLAY-NEXT: %[[D:.*]] = ho.compute "d"(%[[C]], %[[A]]) {tied_operands = array<i64: 1>}
// REPLAY-NEXT: return %[[D]]

// CHECK-LABEL: func.func @planned(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<64xf32> {ho.role = "weight"}, %[[X:[a-z0-9]+]]: tensor<64xf32>, %[[C:[a-z0-9]+]]: tensor<4x64xf32>)
// CHECK-SAME: -> (tensor<64xf32>, tensor<4x64xf32>)
// CHECK-NOT: ho.arena_size
// CHECK-NEXT: %[[A:.*]] = ho.compute "a"(%[[X]], %[[W]]) {flops = 8 : i64} :
// CHECK-NEXT: %[[B:.*]] = ho.compute "b"(%[[A]], %[[W]]) :
// CHECK-NEXT: %[[ROW:.*]] = tensor.expand_shape %[[B]]
// CHECK-NEXT: %[[NEXT:.*]] = tensor.insert_slice %[[ROW]] into %[[C]][2, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<4x64xf32>
// CHECK-NEXT: %[[D:.*]] = ho.compute "d"(%[[A]], %[[B]]) :
// CHECK-NEXT: return %[[D]], %[[NEXT]]
func.func @planned(%w: !ho.remote<tensor<64xf32>, host> {ho.role = "weight"}, %x: tensor<64xf32> {ho.offset = 0 : i64},
                   %c: !ho.remote<tensor<4x64xf32>>, %w2: !ho.remote<tensor<64xf32>, host> {ho.tier_copy_of = 0 : i64})
    -> (tensor<64xf32>, !ho.remote<tensor<4x64xf32>>) attributes {ho.arena_size = 1024 : i64} {
  %fw = ho.prefetch %w {ho.offsets = array<i64: 256>} : !ho.remote<tensor<64xf32>, host> -> !ho.future<tensor<64xf32>>
  %dw = ho.await %fw : !ho.future<tensor<64xf32>> -> tensor<64xf32>
  %a = ho.compute "a"(%x, %dw) {flops = 8 : i64, ho.offsets = array<i64: 512>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %ra = ho.offload %a : tensor<64xf32> -> !ho.remote<tensor<64xf32>, host>
  %fw2 = ho.prefetch %w2 {ho.offsets = array<i64: 256>} : !ho.remote<tensor<64xf32>, host> -> !ho.future<tensor<64xf32>>
  %dw2 = ho.await %fw2 : !ho.future<tensor<64xf32>> -> tensor<64xf32>
  %b = ho.compute "b"(%a, %dw2) {ho.offsets = array<i64: 0>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  ho.wait_offload %ra : !ho.remote<tensor<64xf32>, host>
  %row = tensor.expand_shape %b [[0, 1]] output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
  %next = ho.offload_slice %row into %c [2, 0] : tensor<1x64xf32> into !ho.remote<tensor<4x64xf32>>
  %fa = ho.prefetch %ra {ho.offsets = array<i64: 512>} : !ho.remote<tensor<64xf32>, host> -> !ho.future<tensor<64xf32>>
  %da = ho.await %fa : !ho.future<tensor<64xf32>> -> tensor<64xf32>
  %d = ho.compute "d"(%da, %b) {ho.offsets = array<i64: 768>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %d, %next : tensor<64xf32>, !ho.remote<tensor<4x64xf32>>
}

// -----

// Staged experts and blocks: the prefetches go, and the kernel and the
// gather read the experts and the cache on the device.
// CHECK-LABEL: func.func @selections(
// CHECK-SAME: %[[IDS:[^:]+]]: tensor<1x1xi32>, %[[E0:[^:]+]]: tensor<16xf32>, %[[E1:[^:]+]]: tensor<16xf32>, %[[C:[^:]+]]: tensor<2x10x8xbf16>, %[[SEL:[^:]+]]: tensor<2x2xi32>)
// CHECK-NOT: prefetch
// CHECK-NOT: ho.await
// CHECK: %[[Y:.+]] = ho.routed "expert_ffn"(%{{.+}} : tensor<4xf32>) by %[[IDS]] : tensor<1x1xi32> experts(%[[E0]], %[[E1]] : tensor<16xf32>, tensor<16xf32>) {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<4xf32>
// CHECK: %[[G:.+]] = ho.gather_blocks %[[C]][%[[SEL]]] {axis = 1 : i64, block_size = 4 : i64} : tensor<2x10x8xbf16>, tensor<2x2xi32> -> tensor<2x8x8xbf16>
// CHECK: return %[[Y]], %[[G]]
func.func @selections(%x: tensor<4xf32>, %ids: tensor<1x1xi32>,
                      %e0: tensor<16xf32>, %e1: !ho.remote<tensor<16xf32>>,
                      %c: !ho.remote<tensor<2x10x8xbf16>>, %sel: tensor<2x2xi32>)
    -> (tensor<4xf32>, tensor<2x8x8xbf16>) {
  %r = ho.prefetch_routed %ids : tensor<1x1xi32> experts(%e1 : !ho.remote<tensor<16xf32>>)
      {expert_ids = array<i64: 1>, total_experts = 2 : i64} -> !ho.future<tensor<1x16xf32>>
  %f = ho.prefetch_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x10x8xbf16>>, tensor<2x2xi32> -> !ho.future<tensor<2x8x8xbf16>>
  %slots = ho.await %r : !ho.future<tensor<1x16xf32>> -> tensor<1x16xf32>
  %y = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
      experts(%e0, %e1 : tensor<16xf32>, !ho.remote<tensor<16xf32>>)
      staged(%slots : tensor<1x16xf32>)
      {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<4xf32>
  %t = ho.await %f : !ho.future<tensor<2x8x8xbf16>> -> tensor<2x8x8xbf16>
  %g = ho.gather_blocks %c[%sel] staged(%t : tensor<2x8x8xbf16>) {axis = 1 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x10x8xbf16>>, tensor<2x2xi32> -> tensor<2x8x8xbf16>
  return %y, %g : tensor<4xf32>, tensor<2x8x8xbf16>
}

// -----

// Staged blocks read as they are have no value in the program.
func.func @picked(%c: !ho.remote<tensor<2x10x8xbf16>>, %sel: tensor<2x2xi32>) -> tensor<2x8x8xbf16> {
  %f = ho.prefetch_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x10x8xbf16>>, tensor<2x2xi32> -> !ho.future<tensor<2x8x8xbf16>>
  // expected-error @below {{its staged blocks are read by an op other than the ho.routed or ho.gather_blocks they stage, which the program has no value for}}
  %t = ho.await %f : !ho.future<tensor<2x8x8xbf16>> -> tensor<2x8x8xbf16>
  // expected-note @below {{read here}}
  return %t : tensor<2x8x8xbf16>
}

// -----

// Only the function body's transfers are removed.
func.func @nested(%r: !ho.remote<tensor<64xf32>>, %n: index) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<64xf32>
  %out = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e) -> tensor<64xf32> {
    // expected-error @below {{cannot remove 'ho.prefetch' inside a region; only the transfers of the function body are removed}}
    %f = ho.prefetch %r : !ho.remote<tensor<64xf32>> -> !ho.future<tensor<64xf32>>
    %t = ho.await %f : !ho.future<tensor<64xf32>> -> tensor<64xf32>
    scf.yield %t : tensor<64xf32>
  }
  return %out : tensor<64xf32>
}
