// Four matmuls of three kinds: two of one shape in f32, one of another
// shape in f32 and one in bf16. `calibrate --like` compiles each kind once.

func.func @matmuls(%a: tensor<16x16xf32>, %b: tensor<16x32xf32>,
                   %c: tensor<16x16xbf16>) -> (tensor<16x16xf32>, tensor<16x32xf32>, tensor<16x16xbf16>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m1 = linalg.matmul ins(%a, %a : tensor<16x16xf32>, tensor<16x16xf32>)
      outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m2 = linalg.matmul ins(%m1, %a : tensor<16x16xf32>, tensor<16x16xf32>)
      outs(%init : tensor<16x16xf32>) -> tensor<16x16xf32>
  %ew = tensor.empty() : tensor<16x32xf32>
  %initw = linalg.fill ins(%zero : f32) outs(%ew : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m3 = linalg.matmul ins(%m2, %b : tensor<16x16xf32>, tensor<16x32xf32>)
      outs(%initw : tensor<16x32xf32>) -> tensor<16x32xf32>
  %e16 = tensor.empty() : tensor<16x16xbf16>
  %init16 = linalg.fill ins(%zero16 : bf16) outs(%e16 : tensor<16x16xbf16>) -> tensor<16x16xbf16>
  %m4 = linalg.matmul ins(%c, %c : tensor<16x16xbf16>, tensor<16x16xbf16>)
      outs(%init16 : tensor<16x16xbf16>) -> tensor<16x16xbf16>
  return %m2, %m3, %m4 : tensor<16x16xf32>, tensor<16x32xf32>, tensor<16x16xbf16>
}
