// ho-lower-to-runtime turns each transfer of a placed plan into a call of
// the C runtime interface (include/hyperoffload/Runtime/HyperOffloadRuntime.h).
// RUN: hyperoffload-opt %s --ho-lower-to-runtime -split-input-file -verify-diagnostics | FileCheck %s
// RUN: hyperoffload-opt %s --ho-lower-to-runtime -split-input-file -verify-diagnostics | hyperoffload-opt -split-input-file -o /dev/null
// RUN: hyperoffload-opt %S/pipeline.mlir --hyperoffload="hw=%S/Inputs/round-numbers.json budget=1500000B" | hyperoffload-opt --ho-lower-to-runtime | FileCheck %s --check-prefix=PIPELINE

// A KV cache kept in the pool: fetched into offset 0, appended to in place,
// and stored back; the caller passes and gets back a handle. An activation
// goes to the host and back, with compute waiting for its store.
// CHECK-DAG: func.func private @ho_arena_base() -> memref<?xi8> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @ho_offload_start(i32, i32, i64, i64) -> i64
// CHECK-DAG: func.func private @ho_offload_wait(i64)
// CHECK-DAG: func.func private @ho_prefetch_start(i32, i32, i64, i64, i64) -> i64
// CHECK-DAG: func.func private @ho_event_wait(i64)
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32> {ho.offset = 2000000 : i64}, %[[KV:.+]]: i64 {ho.role = "kv_cache"})
// CHECK-SAME: -> (tensor<4xf32>, i64)
// CHECK: %[[ARENA:.+]] = call @ho_arena_base() : () -> memref<?xi8>
// Pool (tier 0) to device: queue 0, 1 MB into offset 0.
// CHECK: %[[T0:.+]] = arith.constant 0 : i32
// CHECK: %[[Q0:.+]] = arith.constant 0 : i32
// CHECK: %[[O0:.+]] = arith.constant 0 : i64
// CHECK: %[[B0:.+]] = arith.constant 1000000 : i64
// CHECK: %[[E0:.+]] = call @ho_prefetch_start(%[[T0]], %[[Q0]], %[[KV]], %[[O0]], %[[B0]])
// CHECK: call @ho_event_wait(%[[E0]]) : (i64) -> ()
// CHECK: %[[S0:.+]] = arith.constant 0 : index
// CHECK: %[[V0:.+]] = memref.view %[[ARENA]][%[[S0]]][] : memref<?xi8> to memref<250000xf32>
// CHECK: %[[CACHE:.+]] = bufferization.to_tensor %[[V0]] restrict writable : memref<250000xf32> to tensor<250000xf32>
// CHECK: %[[NEW:.+]] = ho.compute "kv_append"(%[[CACHE]], %[[X]])
// Device to host (tier 1): queue 3, from offset 1000000.
// CHECK: %[[ACT:.+]] = ho.compute "act"
// CHECK: %[[T1:.+]] = arith.constant 1 : i32
// CHECK: %[[Q3:.+]] = arith.constant 3 : i32
// CHECK: %[[O1:.+]] = arith.constant 1000000 : i64
// CHECK: %[[COPY:.+]] = call @ho_offload_start(%[[T1]], %[[Q3]], %[[O1]], %{{.+}}) : (i32, i32, i64, i64) -> i64
// CHECK: call @ho_offload_wait(%[[COPY]]) : (i64) -> ()
// CHECK: ho.compute "big"
// CHECK: %[[E1:.+]] = call @ho_prefetch_start(%{{.+}}, %{{.+}}, %[[COPY]], %{{.+}}, %{{.+}})
// CHECK: call @ho_event_wait(%[[E1]])
// CHECK: memref.view %[[ARENA]][%{{.+}}][] : memref<?xi8> to memref<250000xf32>
// The updated cache goes back to the pool: queue 1.
// CHECK: %[[BACK:.+]] = call @ho_offload_start(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
// CHECK: return %{{.+}}, %[[BACK]] : tensor<4xf32>, i64
// CHECK-NOT: ho.offload
// CHECK-NOT: ho.prefetch
// CHECK-NOT: ho.await
func.func @step(%x: tensor<4xf32> {ho.offset = 2000000 : i64},
                %kv: !ho.remote<tensor<250000xf32>> {ho.role = "kv_cache"})
    -> (tensor<4xf32>, !ho.remote<tensor<250000xf32>>) attributes {ho.arena_size = 2000032 : i64} {
  %f = ho.prefetch %kv {ho.offsets = array<i64: 0>} : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %cache = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %new = ho.compute "kv_append"(%cache, %x) {tied_operands = array<i64: 0>}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<250000xf32>
  %act = ho.compute "act"(%x) {ho.offsets = array<i64: 1000000>}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %r = ho.offload %act : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>, host>
  ho.wait_offload %r : !ho.remote<tensor<250000xf32>, host>
  %big = ho.compute "big"(%new) {ho.offsets = array<i64: 1000000>}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %g = ho.prefetch %r {ho.offsets = array<i64: 1000000>} : !ho.remote<tensor<250000xf32>, host> -> !ho.future<tensor<250000xf32>>
  %back = ho.await %g : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %y = ho.compute "use"(%back, %big) {ho.offsets = array<i64: 2000016>}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  %out = ho.offload %new : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  return %y, %out : tensor<4xf32>, !ho.remote<tensor<250000xf32>>
}

// -----

// Without a static memory plan there is nothing to tell the runtime.
func.func @unplaced(%x: tensor<4xf32>) -> !ho.remote<tensor<4xf32>> {
  // expected-error @below {{its device buffer has no offset in the static memory plan; run ho-assign-offsets first}}
  %r = ho.offload %x : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
  return %r : !ho.remote<tensor<4xf32>>
}

// PIPELINE-LABEL: func.func @kv_cache
// PIPELINE-SAME: i64 {ho.placed_by_plan, ho.role = "kv_cache"}
// PIPELINE-SAME: -> (tensor<4xf32>, i64)
// PIPELINE: call @ho_prefetch_start
// PIPELINE: call @ho_event_wait
// PIPELINE: bufferization.to_tensor
// PIPELINE: call @ho_offload_start

// -----

// Transfers move whole buffers: a slice of one would need its strides.
func.func @view(%x: tensor<8xf32> {ho.offset = 0 : i64}) -> !ho.remote<tensor<4xf32>> {
  %v = tensor.extract_slice %x[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  // expected-error @below {{moves a slice of a device buffer; only whole buffers (or reshapes and casts of them) can be lowered to runtime transfers}}
  %r = ho.offload %v : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
  return %r : !ho.remote<tensor<4xf32>>
}

// -----

// A reshape of a whole buffer is the same bytes: it moves like the buffer.
// CHECK-LABEL: func.func @reshaped
// CHECK: call @ho_offload_start(%{{.*}}, %{{.*}}, %{{.*}}, %[[BYTES:.*]]) :
func.func @reshaped(%x: tensor<2x4xf32> {ho.offset = 0 : i64}) -> !ho.remote<tensor<8xf32>> {
  %v = tensor.collapse_shape %x [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %r = ho.offload %v : tensor<8xf32> -> !ho.remote<tensor<8xf32>>
  return %r : !ho.remote<tensor<8xf32>>
}
