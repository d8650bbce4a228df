// Input for ho-plan (examples/consumer): a decode step whose 1 MB KV cache
// does not fit on the device next to w1's 1 MB result. With 1.5 MB of device
// memory the plan keeps the cache in the pool until that result is gone,
// fetches it while w3 runs and sends the appended cache back.
func.func @kv_cache(%x: tensor<4xf32>, %kv: tensor<250000xf32> {ho.role = "kv_cache"})
    -> (tensor<4xf32>, tensor<250000xf32>) {
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %b = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %c = ho.compute "w3"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %kv2 = ho.compute "kv_append"(%kv, %c) {tied_operands = array<i64: 0>, flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<250000xf32>
  %y = ho.compute "attention"(%c, %kv2) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>, tensor<250000xf32>) -> tensor<4xf32>
  return %y, %kv2 : tensor<4xf32>, tensor<250000xf32>
}
