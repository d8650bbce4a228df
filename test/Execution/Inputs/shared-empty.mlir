// One tensor.empty as the init of two fills (what CSE makes of two); below
// about 260 KB it cannot stay on the device between them
// (run-shared-empty.test).
func.func @f(%x: tensor<128x128xf32>, %w1: tensor<128x128xf32>, %w2: tensor<128x128xf32>) -> (tensor<128x128xf32>, tensor<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f1 : tensor<128x128xf32>) -> tensor<128x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %b = linalg.matmul ins(%x, %w2 : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f2 : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %a, %b : tensor<128x128xf32>, tensor<128x128xf32>
}
