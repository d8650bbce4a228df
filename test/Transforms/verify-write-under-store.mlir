// An op that overwrites a buffer in place while an offload of it may still
// be copying makes the stored copy a mix of old and new data: the verifier
// rejects it at the writer, whatever the timing, until the offload is
// waited for.
// RUN: not hyperoffload-opt %s --ho-verify-schedule --split-input-file 2>&1 | FileCheck %s

func.func @f(%x: tensor<1024xf32>) -> (tensor<1024xf32>, !ho.remote<tensor<1024xf32>>) {
  %a = ho.compute "make"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  // CHECK: verify-write-under-store.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: overwrites in place a buffer that an offload may still be copying
  // CHECK: verify-write-under-store.mlir:[[# @LINE + 1]]:{{[0-9]+}}: note: the offload is issued here and not waited for before the write
  %r = ho.offload %a : tensor<1024xf32> -> !ho.remote<tensor<1024xf32>>
  %b = ho.compute "update"(%a) {tied_operands = array<i64: 0>} : (tensor<1024xf32>) -> tensor<1024xf32>
  ho.wait_offload %r : !ho.remote<tensor<1024xf32>>
  return %b, %r : tensor<1024xf32>, !ho.remote<tensor<1024xf32>>
}

// -----

// A destination-style op writes its init in place too; without any wait.
func.func @dps(%x: tensor<1024xf32>) -> (tensor<1024xf32>, !ho.remote<tensor<1024xf32>>) {
  %r = ho.offload %x : tensor<1024xf32> -> !ho.remote<tensor<1024xf32>>
  %c = arith.constant 1.0 : f32
  // CHECK: verify-write-under-store.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: overwrites in place
  %b = linalg.fill ins(%c : f32) outs(%x : tensor<1024xf32>) -> tensor<1024xf32>
  return %b, %r : tensor<1024xf32>, !ho.remote<tensor<1024xf32>>
}

// -----

// Waiting for the store first is correct, and so is writing before it.
// CHECK-NOT: error
func.func @waited(%x: tensor<1024xf32>) -> (tensor<1024xf32>, !ho.remote<tensor<1024xf32>>) {
  %a = ho.compute "make"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  %a2 = ho.compute "update"(%a) {tied_operands = array<i64: 0>} : (tensor<1024xf32>) -> tensor<1024xf32>
  %r = ho.offload %a2 : tensor<1024xf32> -> !ho.remote<tensor<1024xf32>>
  ho.wait_offload %r : !ho.remote<tensor<1024xf32>>
  %b = ho.compute "update"(%a2) {tied_operands = array<i64: 0>} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %b, %r : tensor<1024xf32>, !ho.remote<tensor<1024xf32>>
}
