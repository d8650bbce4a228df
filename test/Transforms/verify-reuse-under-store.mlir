// A buffer placed over the bytes of another whose offload has not been
// waited for races the copy on a link slower than planned: the verifier
// rejects it at the op that allocates it, whatever the simulated timing
// says, for a store of a whole buffer and of a slice alike.
// RUN: not hyperoffload-opt %s --ho-verify-schedule --split-input-file 2>&1 | FileCheck %s

func.func @whole(%x: tensor<1024xf32> {ho.offset = 0 : i64}) -> (tensor<1024xf32>, !ho.remote<tensor<1024xf32>>)
    attributes {ho.arena_size = 12288 : i64} {
  %a = ho.compute "make"(%x) {ho.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1024xf32>
  // CHECK: verify-reuse-under-store.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: places its buffer over the bytes of a buffer that an offload may still be copying
  // CHECK: verify-reuse-under-store.mlir:[[# @LINE + 1]]:{{[0-9]+}}: note: the offload is issued here and not waited for before the reuse
  %r = ho.offload %a : tensor<1024xf32> -> !ho.remote<tensor<1024xf32>>
  %b = ho.compute "next"(%x) {ho.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %b, %r : tensor<1024xf32>, !ho.remote<tensor<1024xf32>>
}

// -----

func.func @slice(%x: tensor<1024xf32> {ho.offset = 0 : i64},
                 %cache: !ho.remote<tensor<4x1024xf32>>) -> (tensor<1024xf32>, !ho.remote<tensor<4x1024xf32>>)
    attributes {ho.arena_size = 12288 : i64} {
  %row = ho.compute "row"(%x) {ho.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1x1024xf32>
  %next = ho.offload_slice %row into %cache [3, 0] : tensor<1x1024xf32> into !ho.remote<tensor<4x1024xf32>>
  // On the default target the store has not completed there either, which
  // the simulated allocator reports as well.
  // CHECK: verify-reuse-under-store.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error: places its buffer over the bytes
  // CHECK: verify-reuse-under-store.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: buffer at offset 4096 (4096 bytes) overlaps a buffer that is still live
  %b = ho.compute "next"(%x) {ho.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %b, %next : tensor<1024xf32>, !ho.remote<tensor<4x1024xf32>>
}

// -----

// Waiting for the store first is correct, for a slice too.
// CHECK-NOT: error
func.func @waited(%x: tensor<1024xf32> {ho.offset = 0 : i64},
                  %cache: !ho.remote<tensor<4x1024xf32>>) -> (tensor<1024xf32>, !ho.remote<tensor<4x1024xf32>>)
    attributes {ho.arena_size = 12288 : i64} {
  %row = ho.compute "row"(%x) {ho.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1x1024xf32>
  %next = ho.offload_slice %row into %cache [3, 0] : tensor<1x1024xf32> into !ho.remote<tensor<4x1024xf32>>
  ho.wait_offload %next : !ho.remote<tensor<4x1024xf32>>
  %b = ho.compute "next"(%x) {ho.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %b, %next : tensor<1024xf32>, !ho.remote<tensor<4x1024xf32>>
}
