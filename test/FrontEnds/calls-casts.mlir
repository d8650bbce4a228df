// What shape refinement and outlining leave in IREE input and torch-mlir
// output: a layer outlined into a private function the entry calls twice,
// casts to a dynamic type and back between the calls, and expand_shape /
// collapse_shape views between the batched and the flat form. The called
// layer runs as written inside the entry's plan; a third check inlines
// it first, as docs/FrontEnds.md recommends, so the plan covers its work.
// REQUIRES: mlir-opt
// RUN: %python %utils/check-front-end-ir.py --opt hyperoffload-opt --mlir-opt %mlir_opt %s | FileCheck %s
// CHECK: calls-casts.mlir: as delivered: peak 3670016 B, memory bound 2097152 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: calls-casts.mlir: canonicalize+cse: peak 3670016 B, memory bound 2097152 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: calls-casts.mlir: inline+canonicalize+cse: peak 3670016 B, memory bound 2621440 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: 1 files, 0 failures

func.func private @layer(%x: tensor<256x512xf32>, %w: tensor<512x512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %y = linalg.matmul ins(%x, %w : tensor<256x512xf32>, tensor<512x512xf32>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

func.func @forward(%x: tensor<8x32x512xf32>, %w1: tensor<512x512xf32>, %w2: tensor<512x512xf32>) -> tensor<8x32x512xf32> {
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<8x32x512xf32> into tensor<256x512xf32>
  %d = tensor.cast %flat : tensor<256x512xf32> to tensor<?x512xf32>
  %ds = tensor.cast %d : tensor<?x512xf32> to tensor<256x512xf32>
  %h = func.call @layer(%ds, %w1) : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
  %hd = tensor.cast %h : tensor<256x512xf32> to tensor<?x512xf32>
  %hs = tensor.cast %hd : tensor<?x512xf32> to tensor<256x512xf32>
  %ys = func.call @layer(%hs, %w2) : (tensor<256x512xf32>, tensor<512x512xf32>) -> tensor<256x512xf32>
  %out = tensor.expand_shape %ys [[0, 1], [2]] output_shape [8, 32, 512] : tensor<256x512xf32> into tensor<8x32x512xf32>
  return %out : tensor<8x32x512xf32>
}
