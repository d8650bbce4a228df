// A two-layer MLP as torch-mlir's linalg-on-tensors backend emits it: the
// RNG seed as an ml_program global, weights as dense constants and an
// immutable global, one
// tensor.empty and one fill shared by both matmuls after CSE, bias and ReLU
// as broadcasting generics, and a flatten as collapse_shape.
// REQUIRES: mlir-opt
// RUN: %python %utils/check-front-end-ir.py --opt hyperoffload-opt --mlir-opt %mlir_opt %s | FileCheck %s
// CHECK: torch-mlp.mlir: as delivered: peak 1068032 B, memory bound 536576 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: torch-mlp.mlir: canonicalize+cse: peak 1068032 B, memory bound 536576 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: torch-mlp.mlir: inline+canonicalize+cse: peak 1068032 B, memory bound 536576 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: 1 files, 0 failures

#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  ml_program.global private @fc2_bias(dense<0.2> : tensor<256xf32>) : tensor<256xf32>
  func.func @forward(%x: tensor<4x16x16xf32>) -> tensor<4x256xf32> {
    %w1 = arith.constant dense<0.01> : tensor<256x512xf32>
    %b1 = arith.constant dense<0.1> : tensor<512xf32>
    %w2 = arith.constant dense<0.02> : tensor<512x256xf32>
    %b2 = ml_program.global_load_const @fc2_bias : tensor<256xf32>
    %zero = arith.constant 0.000000e+00 : f32
    %flat = tensor.collapse_shape %x [[0], [1, 2]] : tensor<4x16x16xf32> into tensor<4x256xf32>
    %e1 = tensor.empty() : tensor<4x512xf32>
    %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x512xf32>) -> tensor<4x512xf32>
    %h = linalg.matmul ins(%flat, %w1 : tensor<4x256xf32>, tensor<256x512xf32>) outs(%f1 : tensor<4x512xf32>) -> tensor<4x512xf32>
    %hb = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
        ins(%h, %b1 : tensor<4x512xf32>, tensor<512xf32>) outs(%e1 : tensor<4x512xf32>) {
    ^bb0(%in: f32, %b: f32, %out: f32):
      %s = arith.addf %in, %b : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    } -> tensor<4x512xf32>
    %e2 = tensor.empty() : tensor<4x256xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x256xf32>) -> tensor<4x256xf32>
    %y = linalg.matmul ins(%hb, %w2 : tensor<4x512xf32>, tensor<512x256xf32>) outs(%f2 : tensor<4x256xf32>) -> tensor<4x256xf32>
    %yb = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]}
        ins(%y, %b2 : tensor<4x256xf32>, tensor<256xf32>) outs(%e2 : tensor<4x256xf32>) {
    ^bb0(%in: f32, %b: f32, %out: f32):
      %s = arith.addf %in, %b : f32
      linalg.yield %s : f32
    } -> tensor<4x256xf32>
    return %yb : tensor<4x256xf32>
  }
}
