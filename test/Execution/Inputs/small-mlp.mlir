// examples/mlp.mlir at test sizes: 8 tokens of width 32, a hidden layer of
// 128; the weights are 16 KiB each.

#rows = affine_map<(i, j) -> (i, j)>
#bias = affine_map<(i, j) -> (j)>

func.func @mlp(%x: tensor<8x32xf32>,
               %w1: tensor<32x128xf32>, %b1: tensor<128xf32>,
               %w2: tensor<128x32xf32>, %b2: tensor<32xf32>)
    -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32

  // Up projection, bias and ReLU fused in one generic.
  %h_empty = tensor.empty() : tensor<8x128xf32>
  %h_zero = linalg.fill ins(%zero : f32) outs(%h_empty : tensor<8x128xf32>) -> tensor<8x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x32xf32>, tensor<32x128xf32>)
      outs(%h_zero : tensor<8x128xf32>) -> tensor<8x128xf32>
  %a_empty = tensor.empty() : tensor<8x128xf32>
  %a = linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<8x128xf32>, tensor<128xf32>)
      outs(%a_empty : tensor<8x128xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x128xf32>

  // Down projection and bias, added in place into the matmul's result.
  %y_empty = tensor.empty() : tensor<8x32xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x128xf32>, tensor<128x32xf32>)
      outs(%y_zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %out = linalg.generic {indexing_maps = [#bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%b2 : tensor<32xf32>) outs(%y : tensor<8x32xf32>) {
  ^bb0(%b: f32, %acc: f32):
    %s = arith.addf %acc, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %out : tensor<8x32xf32>
}
