// RUN: hyperoffload-opt %s --split-input-file --ho-synthesize-kernels --verify-diagnostics | FileCheck %s

// Each operand is read whole into a checksum; each result is written whole
// from them.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[W:.*]]: tensor<8x2xbf16>)
// CHECK: %[[SUMX:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]{{.*}} ins(%[[X]] : tensor<4x8xbf16>) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: tensor.extract %[[SUMX]][] : tensor<i64>
// CHECK: linalg.generic {{.*}} ins(%[[W]] : tensor<8x2xbf16>) outs(%{{.*}} : tensor<i64>)
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x2xbf16>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%[[EMPTY]] : tensor<4x2xbf16>)
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK-NOT: ho.compute
// CHECK: return %[[Y]]
func.func @matmul(%x: tensor<4x8xbf16>, %w: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  %y = ho.compute "matmul"(%x, %w) : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  return %y : tensor<4x2xbf16>
}

// -----

// A tied result is written into its operand, where the plan put both.
// CHECK-LABEL: func.func @append
// CHECK-SAME: (%[[CACHE:.*]]: tensor<16x4xf32>, %[[NEW:.*]]: tensor<1x4xf32>)
// CHECK: %[[UPDATED:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%[[CACHE]] : tensor<16x4xf32>)
// CHECK: return %[[UPDATED]]
func.func @append(%cache: tensor<16x4xf32>, %new: tensor<1x4xf32>) -> tensor<16x4xf32> {
  %0 = ho.compute "kv_append"(%cache, %new) {tied_operands = array<i64: 0>} : (tensor<16x4xf32>, tensor<1x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// Integers come out in [0, 4), so that one used as an index stays in range.
// CHECK-LABEL: func.func @argmax
// CHECK: arith.andi %{{.*}}, %c3_i64 : i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @argmax(%x: tensor<8xf32>) -> tensor<1xi32> {
  %0 = ho.compute "argmax"(%x) : (tensor<8xf32>) -> tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

func.func @dynamic(%x: tensor<?xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot synthesize a kernel reading 'tensor<?xf32>'; only tensors of static shape and integer or float elements can run}}
  %0 = ho.compute "relu"(%x) : (tensor<?xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @complex(%x: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  // expected-error @below {{cannot synthesize a kernel writing 'tensor<4xcomplex<f32>>'}}
  %0 = ho.compute "fft"(%x) : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}
