// A placed result that is not destination-style (math.cos on a tensor) is
// copied into its arena bytes, which a fetched argument used before.
func.func @f(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %r = linalg.copy ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
  %c = math.cos %r : tensor<1024xf32>
  return %c : tensor<1024xf32>
}
