// Two matmuls into one constant init: each result is placed in the arena
// (ho.offsets on the matmul, whose init is copied there first).
func.func @f(%x: tensor<128x128xf32>, %w1: tensor<128x128xf32>, %w2: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%z : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %a, %b : tensor<128x128xf32>, tensor<128x128xf32>
}
