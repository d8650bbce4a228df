// An embedding lookup and a greedy pick as torch-mlir emits them: the
// token ids checked against the vocabulary with cf.assert, the table read
// with tensor.extract inside a generic, a projection to the vocabulary, and
// an argmax as one reduction with two outputs (value and index).
// REQUIRES: mlir-opt
// RUN: %python %utils/check-front-end-ir.py --opt hyperoffload-opt --mlir-opt %mlir_opt %s | FileCheck %s
// CHECK: embedding-argmax.mlir: as delivered: peak 8946176 B, memory bound 4751360 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: embedding-argmax.mlir: canonicalize+cse: peak 8946176 B, memory bound 4751360 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: embedding-argmax.mlir: inline+canonicalize+cse: peak 8946176 B, memory bound 4751360 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: 1 files, 0 failures

#rows = affine_map<(d0, d1) -> (d0)>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @pick(%ids: tensor<32xi64>, %table: tensor<4096x256xf32>, %head: tensor<256x4096xf32>) -> (tensor<32xf32>, tensor<32xi64>) {
  %c0 = arith.constant 0 : index
  %vocab = arith.constant 4096 : i64
  %first = tensor.extract %ids[%c0] : tensor<32xi64>
  %ok = arith.cmpi slt, %first, %vocab : i64
  cf.assert %ok, "token id out of range"
  %e = tensor.empty() : tensor<32x256xf32>
  %emb = linalg.generic {indexing_maps = [#rows, #map], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<32xi64>) outs(%e : tensor<32x256xf32>) {
  ^bb0(%id: i64, %out: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<4096x256xf32>
    linalg.yield %v : f32
  } -> tensor<32x256xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %el = tensor.empty() : tensor<32x4096xf32>
  %fl = linalg.fill ins(%zero : f32) outs(%el : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %logits = linalg.matmul ins(%emb, %head : tensor<32x256xf32>, tensor<256x4096xf32>) outs(%fl : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %ev = tensor.empty() : tensor<32xf32>
  %fv = linalg.fill ins(%ninf : f32) outs(%ev : tensor<32xf32>) -> tensor<32xf32>
  %c0i = arith.constant 0 : i64
  %ei = tensor.empty() : tensor<32xi64>
  %fi = linalg.fill ins(%c0i : i64) outs(%ei : tensor<32xi64>) -> tensor<32xi64>
  %best:2 = linalg.generic {indexing_maps = [#map, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<32x4096xf32>) outs(%fv, %fi : tensor<32xf32>, tensor<32xi64>) {
  ^bb0(%v: f32, %max: f32, %arg: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %v, %max : f32
    %m = arith.select %gt, %v, %max : f32
    %a = arith.select %gt, %ji, %arg : i64
    linalg.yield %m, %a : f32, i64
  } -> (tensor<32xf32>, tensor<32xi64>)
  return %best#0, %best#1 : tensor<32xf32>, tensor<32xi64>
}
