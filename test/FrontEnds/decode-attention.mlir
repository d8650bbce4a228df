// One attention decode step in the style of torch-mlir and IREE input: the
// new key and value appended to caches passed in (tensor.insert_slice, in
// place), the live part of each cache read through extract_slice views, a
// dynamic-typed cast and its cast back (what shape refinement leaves), a
// transpose, scores and softmax (a max and a sum reduction), and a
// projection in a private helper the step calls.
//
// The value cache, written in place at the top and read only at the end,
// must leave the device while the key cache and its 1 MB transpose are
// there. Two values carry it across that gap (the written cache, returned,
// and the extract_slice view the attention reads): the plan moves the whole
// cache and remakes the view on the fetched copy.
// REQUIRES: mlir-opt
// RUN: %python %utils/check-front-end-ir.py --opt hyperoffload-opt --mlir-opt %mlir_opt %s | FileCheck %s
// CHECK: decode-attention.mlir: as delivered: peak 5513728 B, memory bound 3146752 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: decode-attention.mlir: canonicalize+cse: peak 5513728 B, memory bound 3146752 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: decode-attention.mlir: inline+canonicalize+cse: peak 5513728 B, memory bound 3146752 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: 1 files, 0 failures

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func private @project(%x: tensor<1x256xf32>, %w: tensor<256x256xf32>) -> tensor<1x256xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x256xf32>) -> tensor<1x256xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1x256xf32>, tensor<256x256xf32>) outs(%f : tensor<1x256xf32>) -> tensor<1x256xf32>
  return %y : tensor<1x256xf32>
}

func.func @step(%q: tensor<1x256xf32>, %k: tensor<1x256xf32>, %v: tensor<1x256xf32>,
                %kcache: tensor<2048x256xf32>, %vcache: tensor<2048x256xf32>,
                %wo: tensor<256x256xf32>)
    -> (tensor<1x256xf32>, tensor<2048x256xf32>, tensor<2048x256xf32>) {
  %kc = tensor.insert_slice %k into %kcache[1024, 0] [1, 256] [1, 1] : tensor<1x256xf32> into tensor<2048x256xf32>
  %vc = tensor.insert_slice %v into %vcache[1024, 0] [1, 256] [1, 1] : tensor<1x256xf32> into tensor<2048x256xf32>
  %keys = tensor.extract_slice %kc[0, 0] [1025, 256] [1, 1] : tensor<2048x256xf32> to tensor<1025x256xf32>
  %vals = tensor.extract_slice %vc[0, 0] [1025, 256] [1, 1] : tensor<2048x256xf32> to tensor<1025x256xf32>
  %kd = tensor.cast %keys : tensor<1025x256xf32> to tensor<?x256xf32>
  %ks = tensor.cast %kd : tensor<?x256xf32> to tensor<1025x256xf32>
  %et = tensor.empty() : tensor<256x1025xf32>
  %kt = linalg.transpose ins(%ks : tensor<1025x256xf32>) outs(%et : tensor<256x1025xf32>) permutation = [1, 0]
  %zero = arith.constant 0.000000e+00 : f32
  %es = tensor.empty() : tensor<1x1025xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x1025xf32>) -> tensor<1x1025xf32>
  %scores = linalg.matmul ins(%q, %kt : tensor<1x256xf32>, tensor<256x1025xf32>) outs(%fs : tensor<1x1025xf32>) -> tensor<1x1025xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %em = tensor.empty() : tensor<1xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<1xf32>) -> tensor<1xf32>
  %max = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%scores : tensor<1x1025xf32>) outs(%fm : tensor<1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1xf32>
  %exp = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%scores, %max : tensor<1x1025xf32>, tensor<1xf32>) outs(%es : tensor<1x1025xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<1x1025xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%em : tensor<1xf32>) -> tensor<1xf32>
  %sum = linalg.generic {indexing_maps = [#map, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<1x1025xf32>) outs(%fz : tensor<1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  %probs = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<1x1025xf32>, tensor<1xf32>) outs(%es : tensor<1x1025xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %p = arith.divf %in, %s : f32
    linalg.yield %p : f32
  } -> tensor<1x1025xf32>
  %eo = tensor.empty() : tensor<1x256xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x256xf32>) -> tensor<1x256xf32>
  %attn = linalg.matmul ins(%probs, %vals : tensor<1x1025xf32>, tensor<1025x256xf32>) outs(%fo : tensor<1x256xf32>) -> tensor<1x256xf32>
  %out = func.call @project(%attn, %wo) : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
  return %out, %kc, %vc : tensor<1x256xf32>, tensor<2048x256xf32>, tensor<2048x256xf32>
}
