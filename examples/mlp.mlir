// A small two-layer MLP in linalg on tensors: 512 tokens of width 1024, a
// hidden layer of 4096 with a ReLU, f32. The weights (32 MiB) arrive as
// arguments; the hidden activation is the largest intermediate (8 MiB).

#rows = affine_map<(i, j) -> (i, j)>
#bias = affine_map<(i, j) -> (j)>

func.func @mlp(%x: tensor<512x1024xf32>,
               %w1: tensor<1024x4096xf32>, %b1: tensor<4096xf32>,
               %w2: tensor<4096x1024xf32>, %b2: tensor<1024xf32>)
    -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32

  // Up projection, bias and ReLU fused in one generic.
  %h_empty = tensor.empty() : tensor<512x4096xf32>
  %h_zero = linalg.fill ins(%zero : f32) outs(%h_empty : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<512x1024xf32>, tensor<1024x4096xf32>)
      outs(%h_zero : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %a_empty = tensor.empty() : tensor<512x4096xf32>
  %a = linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<512x4096xf32>, tensor<4096xf32>)
      outs(%a_empty : tensor<512x4096xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<512x4096xf32>

  // Down projection and bias, added in place into the matmul's result.
  %y_empty = tensor.empty() : tensor<512x1024xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_empty : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<512x4096xf32>, tensor<4096x1024xf32>)
      outs(%y_zero : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %out = linalg.generic {indexing_maps = [#bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%b2 : tensor<1024xf32>) outs(%y : tensor<512x1024xf32>) {
  ^bb0(%b: f32, %acc: f32):
    %s = arith.addf %acc, %b : f32
    linalg.yield %s : f32
  } -> tensor<512x1024xf32>
  return %out : tensor<512x1024xf32>
}
