// A static memory plan's offsets are checked by the dialect (form and
// range) and against the arena by the verifier and the lowering (one check,
// verifyBuffersInArena).
// RUN: not hyperoffload-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not hyperoffload-opt %s --split-input-file --ho-verify-schedule 2>&1 | FileCheck %s --check-prefix=ARENA
// RUN: not hyperoffload-opt %s --split-input-file --ho-lower-to-runtime 2>&1 | FileCheck %s --check-prefix=ARENA

// PARSE: offsets.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: argument #0: 'ho.offset' must be in [0, 2^59], got -4096
func.func @negative(%x: tensor<1024xf32> {ho.offset = -4096 : i64}) -> tensor<1024xf32> attributes {ho.arena_size = 4096 : i64} {
  return %x : tensor<1024xf32>
}

// -----

// PARSE: offsets.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: argument #0: 'ho.offset' must be in [0, 2^59], got 9223372036854775807
func.func @overflow(%x: tensor<1024xf32> {ho.offset = 9223372036854775807 : i64}) -> tensor<1024xf32> attributes {ho.arena_size = 4096 : i64} {
  return %x : tensor<1024xf32>
}

// -----

func.func @result_count(%x: tensor<1024xf32> {ho.offset = 0 : i64}) -> tensor<1024xf32> attributes {ho.arena_size = 8192 : i64} {
  // PARSE: offsets.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'ho.offsets' has 2 entries for 1 results
  %y = ho.compute "add"(%x) {ho.offsets = array<i64: 4096, 0>} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}

// -----

// PARSE: offsets.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: 'ho.arena_size' must be in [0, 2^59], got -1
func.func @arena(%x: tensor<1024xf32>) -> tensor<1024xf32> attributes {ho.arena_size = -1 : i64} {
  return %x : tensor<1024xf32>
}

// -----

// In range, but past the arena: the verifier and the lowering say so at the
// buffer.
// ARENA: offsets.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: a buffer of 4096 bytes at offset 100000 ends past the arena of 8192 bytes (ho.arena_size)
func.func @past_arena(%x: tensor<1024xf32> {ho.offset = 100000 : i64}) -> !ho.remote<tensor<1024xf32>> attributes {ho.arena_size = 8192 : i64} {
  %r = ho.offload %x : tensor<1024xf32> -> !ho.remote<tensor<1024xf32>>
  return %r : !ho.remote<tensor<1024xf32>>
}
