// ho-lower-to-runtime turns a prefetch of picked blocks into a runtime
// group that copies them into their places, the gather that reads them into
// the call that puts them in the selection's order (fetching what a wrong
// prediction missed), and a slice offload into evenly spaced runs written
// into the tier copy in place.
// RUN: hyperoffload-opt %s --ho-lower-to-runtime -split-input-file -verify-diagnostics | FileCheck %s
// RUN: hyperoffload-opt %s --ho-lower-to-runtime -split-input-file -verify-diagnostics | hyperoffload-opt -split-input-file -o /dev/null

// CHECK-DAG: func.func private @ho_blocks_begin(i32, i32, i64, i64, i64, i64, i64, i64, i64) -> i64
// CHECK-DAG: func.func private @ho_blocks_event(i64) -> i64
// CHECK-DAG: func.func private @ho_blocks_ensure(i64, i64)
// CHECK-DAG: func.func private @ho_offload_slice_start(i32, i32, i64, i64, i64, i64, i64, i64) -> i64
// CHECK-LABEL: func.func @decode
// CHECK-SAME: %[[CACHE:[^:]+]]: i64
// Pool (0) on its queue to the device (0); the picks at offset 64, 2 rows of
// 2; rows of 5 blocks of 3 x 4 bytes (60 bytes), the places at 128.
// CHECK: %[[G:.+]] = call @ho_blocks_begin(%c0_i32, %c0_i32{{.*}}, %[[CACHE]], %c64_i64, %c2_i64, %c2_i64{{.*}}, %c60_i64, %c12_i64, %c128_i64)
// CHECK: %[[E:.+]] = call @ho_blocks_event(%[[G]])
// CHECK: call @ho_event_wait(%[[E]])
// CHECK: call @ho_blocks_ensure(%[[G]], %c64_i64{{.*}})
// CHECK: ho.compute "selected"(%[[BLOCKS:[^)]+]])
// The row [2, 1, 3] from 256 into [2, 5, 3] at row 4: 2 runs of 12 bytes
// at 48 and 108.
// CHECK: %[[NEXT:.+]] = call @ho_offload_slice_start(%c0_i32{{.*}}, %c1_i32{{.*}}, %[[CACHE]], %c256_i64, %c12_i64{{.*}}, %c2_i64{{.*}}, %c48_i64, %c60_i64{{.*}})
// CHECK: return %{{.+}}, %[[NEXT]] : tensor<4xf32>, i64
func.func @decode(%q: tensor<4xf32> {ho.offset = 0 : i64},
                  %sel: tensor<2x2xi32> {ho.offset = 64 : i64},
                  %cache: !ho.remote<tensor<2x5x3xf32>>,
                  %row: tensor<2x1x3xf32> {ho.offset = 256 : i64})
    -> (tensor<4xf32>, !ho.remote<tensor<2x5x3xf32>>)
    attributes {ho.arena_size = 512 : i64} {
  %f = ho.prefetch_blocks %cache[%sel] {axis = 1 : i64, block_size = 1 : i64,
                                        ho.offsets = array<i64: 128>}
      : !ho.remote<tensor<2x5x3xf32>>, tensor<2x2xi32> -> !ho.future<tensor<2x2x3xf32>>
  %s = ho.await %f : !ho.future<tensor<2x2x3xf32>> -> tensor<2x2x3xf32>
  %b = ho.gather_blocks %cache[%sel] staged(%s : tensor<2x2x3xf32>)
      {axis = 1 : i64, block_size = 1 : i64}
      : !ho.remote<tensor<2x5x3xf32>>, tensor<2x2xi32> -> tensor<2x2x3xf32>
  %o = ho.compute "selected"(%b) {flops = 0 : i64, ho.offsets = array<i64: 192>}
      : (tensor<2x2x3xf32>) -> tensor<4xf32>
  %next = ho.offload_slice %row into %cache [0, 4, 0]
      : tensor<2x1x3xf32> into !ho.remote<tensor<2x5x3xf32>>
  return %o, %next : tensor<4xf32>, !ho.remote<tensor<2x5x3xf32>>
}

// -----

func.func @staged_from_argument(%sel: tensor<1x1xi32> {ho.offset = 0 : i64},
                                %cache: !ho.remote<tensor<1x4x2xf32>>,
                                %s: tensor<1x1x2xf32> {ho.offset = 64 : i64})
    attributes {ho.arena_size = 128 : i64} {
  // expected-error @below {{reads staged blocks that are not the awaited result of a ho.prefetch_blocks, so no runtime group holds them}}
  %b = ho.gather_blocks %cache[%sel] staged(%s : tensor<1x1x2xf32>)
      {axis = 1 : i64, block_size = 1 : i64}
      : !ho.remote<tensor<1x4x2xf32>>, tensor<1x1xi32> -> tensor<1x1x2xf32>
  return
}

// -----

func.func @wide_picks(%sel: tensor<1x1xi64> {ho.offset = 0 : i64},
                      %cache: !ho.remote<tensor<1x4x2xf32>>)
    attributes {ho.arena_size = 128 : i64} {
  // expected-error @below {{picks by 'tensor<1x1xi64>'; the runtime reads int32 ids}}
  %f = ho.prefetch_blocks %cache[%sel] {axis = 1 : i64, block_size = 1 : i64,
                                        ho.offsets = array<i64: 64>}
      : !ho.remote<tensor<1x4x2xf32>>, tensor<1x1xi64> -> !ho.future<tensor<1x1x2xf32>>
  return
}

// -----

func.func @uneven_slice(%row: tensor<2x2x1x3xf32> {ho.offset = 0 : i64},
                        %cache: !ho.remote<tensor<2x4x5x3xf32>>)
    -> !ho.remote<tensor<2x4x5x3xf32>> attributes {ho.arena_size = 128 : i64} {
  // expected-error @below {{stores a slice that is not evenly spaced runs of bytes in its destination (more than one outer dimension of 'tensor<2x2x1x3xf32>' in 'tensor<2x4x5x3xf32>' has several elements); the runtime copies one strided run list}}
  %next = ho.offload_slice %row into %cache [0, 1, 4, 0]
      : tensor<2x2x1x3xf32> into !ho.remote<tensor<2x4x5x3xf32>>
  return %next : !ho.remote<tensor<2x4x5x3xf32>>
}
