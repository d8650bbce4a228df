// RUN: hyperoffload-opt %s --split-input-file --ho-lower-to-runtime --ho-place-in-arena -verify-diagnostics | FileCheck %s
// RUN: hyperoffload-opt %s --split-input-file --ho-lower-to-runtime --ho-place-in-arena=check-integrity -verify-diagnostics | FileCheck %s --check-prefix=INTEGRITY

// A fresh buffer becomes the arena's bytes at its offset, a device-resident
// argument is read from the arena, and a fetched weight keeps its view.
// CHECK-LABEL: func.func @step
// CHECK: %[[ARENA:.*]] = call @ho_arena_base()
// CHECK: %[[XV:.*]] = memref.view %[[ARENA]][%c0{{.*}}][] : memref<?xi8> to memref<4xf32>
// CHECK: %[[X:.*]] = bufferization.to_tensor %[[XV]] restrict writable
// CHECK: %[[EV:.*]] = memref.view %[[ARENA]][%c32{{.*}}][] : memref<?xi8> to memref<4xf32>
// CHECK: %[[E:.*]] = bufferization.to_tensor %[[EV]] restrict writable
// CHECK: %[[R:.*]] = linalg.exp ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK-NOT: tensor.empty
// CHECK: linalg.add ins(%[[R]], %{{.*}} : tensor<4xf32>, tensor<4xf32>)

// Every arena access is reported with the data it expects: the argument by
// its number, the fetched weight by its copy, a result by the write that
// made it.
// INTEGRITY-LABEL: func.func @step
// INTEGRITY-SAME: ho.integrity_sites = ["loc(\22exp\22)", "loc(\22add\22)"]
// INTEGRITY: call @ho_integrity_read(%c0_i64{{.*}}, %c16_i64{{.*}}, %c0_i64{{.*}}, %c0_i64{{.*}})
// INTEGRITY-NEXT: linalg.exp
// INTEGRITY: %[[EXP:.*]] = call @ho_integrity_write(%c32_i64{{.*}}, %c16_i64{{.*}}, %c0_i64{{.*}})
// INTEGRITY: call @ho_event_wait
// INTEGRITY: %[[W:.*]] = call @ho_integrity_copy_owner(%arg1)
// INTEGRITY: call @ho_integrity_read(%c32_i64{{.*}}, %c16_i64{{.*}}, %[[EXP]], %c1_i64{{.*}})
// INTEGRITY: call @ho_integrity_read(%c16_i64{{.*}}, %c16_i64{{.*}}, %[[W]], %c1_i64{{.*}})
// INTEGRITY-NEXT: linalg.add
// INTEGRITY: call @ho_integrity_write(%c48_i64{{.*}}, %c16_i64{{.*}}, %c1_i64{{.*}})
func.func @step(%x: tensor<4xf32> {ho.offset = 0 : i64},
                %w: !ho.remote<tensor<4xf32>>) -> tensor<4xf32>
    attributes {ho.arena_size = 64 : i64} {
  %f = ho.prefetch %w {ho.offsets = array<i64: 16>} : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  %e = tensor.empty() {ho.offsets = array<i64: 32>} : tensor<4xf32>
  %r = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32> loc("exp")
  %wd = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
  %e2 = tensor.empty() {ho.offsets = array<i64: 48>} : tensor<4xf32>
  %s = linalg.add ins(%r, %wd : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32> loc("add")
  return %s : tensor<4xf32>
}

// -----

// A destination-style op that writes a buffer of its own (its init is still
// read afterwards) gets the arena bytes as its init, filled from the old one.
// CHECK-LABEL: func.func @copy_init
// CHECK: %[[V:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK: %[[C:.*]] = bufferization.materialize_in_destination %arg0 in %[[V]]
// CHECK: linalg.exp {ho.offsets = array<i64: 0>} ins(%arg0 : tensor<4xf32>) outs(%[[C]] : tensor<4xf32>)
func.func @copy_init(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    attributes {ho.arena_size = 16 : i64} {
  %r = linalg.exp {ho.offsets = array<i64: 0>} ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %r, %x : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @dynamic(%n: index) -> tensor<?xf32> attributes {ho.arena_size = 16 : i64} {
  // expected-error @below {{places a tensor of dynamic shape 'tensor<?xf32>' in the arena; only static shapes can run}}
  %e = tensor.empty(%n) {ho.offsets = array<i64: 0>} : tensor<?xf32>
  return %e : tensor<?xf32>
}

// -----

// The dialect itself rejects an ho.offsets without one entry per result.
func.func @malformed(%x: tensor<4xf32>) -> tensor<4xf32> attributes {ho.arena_size = 16 : i64} {
  // expected-error @below {{'ho.offsets' has 2 entries for 1 results}}
  %e = tensor.empty() {ho.offsets = array<i64: 0, 16>} : tensor<4xf32>
  return %e : tensor<4xf32>
}
