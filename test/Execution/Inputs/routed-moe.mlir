// Two mixture-of-experts layers, four 1 MB experts each, one pick per
// token: the second layer's experts can be fetched on the first's picks
// (a prediction), and a wrong guess is fetched by the kernel itself.
func.func @moe2(%x: tensor<4xf32> {ho.role = "input"},
                %a0: tensor<250000xf32> {ho.role = "weight"},
                %a1: tensor<250000xf32> {ho.role = "weight"},
                %a2: tensor<250000xf32> {ho.role = "weight"},
                %a3: tensor<250000xf32> {ho.role = "weight"},
                %b0: tensor<250000xf32> {ho.role = "weight"},
                %b1: tensor<250000xf32> {ho.role = "weight"},
                %b2: tensor<250000xf32> {ho.role = "weight"},
                %b3: tensor<250000xf32> {ho.role = "weight"}) -> tensor<4xf32> {
  %ids0 = ho.compute "topk"(%x) {flops = 100000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<1x1xi32>
  %s0 = ho.compute "shared"(%x) {flops = 500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %y0 = ho.routed "expert_ffn"(%s0 : tensor<4xf32>) by %ids0 : tensor<1x1xi32>
      experts(%a0, %a1, %a2, %a3 : tensor<250000xf32>, tensor<250000xf32>,
              tensor<250000xf32>, tensor<250000xf32>)
      {first_expert = 0 : i64, total_experts = 4 : i64} -> tensor<4xf32>
  %ids1 = ho.compute "topk"(%y0) {flops = 100000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<1x1xi32>
  %s1 = ho.compute "shared"(%y0) {flops = 500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %y1 = ho.routed "expert_ffn"(%s1 : tensor<4xf32>) by %ids1 : tensor<1x1xi32>
      experts(%b0, %b1, %b2, %b3 : tensor<250000xf32>, tensor<250000xf32>,
              tensor<250000xf32>, tensor<250000xf32>)
      {first_expert = 0 : i64, total_experts = 4 : i64} -> tensor<4xf32>
  return %y1 : tensor<4xf32>
}
