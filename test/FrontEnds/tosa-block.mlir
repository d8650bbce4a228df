// A projection block as TOSA front ends (onnx-mlir, TFLite) emit it:
// weights as tosa.const, reshapes between 2-D and the 3-D batched matmul,
// a broadcasting add and a clamp.
// REQUIRES: mlir-opt
// RUN: %python %utils/check-front-end-ir.py --opt hyperoffload-opt --mlir-opt %mlir_opt %s | FileCheck %s
// CHECK: tosa-block.mlir: as delivered: peak 1378816 B, memory bound 721408 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: tosa-block.mlir: canonicalize+cse: peak 1378816 B, memory bound 721408 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: tosa-block.mlir: inline+canonicalize+cse: peak 1378816 B, memory bound 721408 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: 1 files, 0 failures

func.func @block(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %w1 = "tosa.const"() {values = dense<0.01> : tensor<1x256x512xf32>} : () -> tensor<1x256x512xf32>
  %w2 = "tosa.const"() {values = dense<0.02> : tensor<1x512x256xf32>} : () -> tensor<1x512x256xf32>
  %bias = "tosa.const"() {values = dense<0.5> : tensor<1x1x512xf32>} : () -> tensor<1x1x512xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 64, 256]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[64, 256]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x3 = tosa.reshape %x, %s3 : (tensor<64x256xf32>, !tosa.shape<3>) -> tensor<1x64x256xf32>
  %h = tosa.matmul %x3, %w1, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x512xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x512xf32>
  %hb = tosa.add %h, %bias : (tensor<1x64x512xf32>, tensor<1x1x512xf32>) -> tensor<1x64x512xf32>
  %r = tosa.clamp %hb {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x64x512xf32>) -> tensor<1x64x512xf32>
  %y = tosa.matmul %r, %w2, %zp, %zp : (tensor<1x64x512xf32>, tensor<1x512x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %y2 = tosa.reshape %y, %s2 : (tensor<1x64x256xf32>, !tosa.shape<2>) -> tensor<64x256xf32>
  return %y2 : tensor<64x256xf32>
}
