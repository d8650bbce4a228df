// What ho-synthesize-kernels refuses in run-time selections, at the op:
// slots a routed kernel reads before the plan is lowered, and picks two
// readers take to range over different numbers of ids.
// RUN: hyperoffload-opt %s --ho-synthesize-kernels -split-input-file -verify-diagnostics -o /dev/null

func.func @staged(%x: tensor<4xf32>, %e0: !ho.remote<tensor<16xf32>>, %s: tensor<1x16xf32>) -> tensor<4xf32> {
  %ids = ho.compute "topk"(%x) : (tensor<4xf32>) -> tensor<1x1xi32>
  // expected-error @below {{cannot synthesize a kernel reading staged slots; lower the plan first (ho-lower-to-runtime)}}
  %y = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
      experts(%e0 : !ho.remote<tensor<16xf32>>) staged(%s : tensor<1x16xf32>)
      {first_expert = 0 : i64, total_experts = 1 : i64} -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @two_ranges(%x: tensor<4xf32>, %e0: tensor<16xf32>, %e1: tensor<16xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-note @below {{the picks are made here}}
  %ids = ho.compute "topk"(%x) : (tensor<4xf32>) -> tensor<1x1xi32>
  %y = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
      experts(%e0, %e1 : tensor<16xf32>, tensor<16xf32>)
      {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<4xf32>
  // expected-error @below {{cannot run: its picks range over 4 ids, but another reader's over 2}}
  %z = ho.routed "expert_ffn"(%x : tensor<4xf32>) by %ids : tensor<1x1xi32>
      experts(%e0, %e1 : tensor<16xf32>, tensor<16xf32>)
      {first_expert = 2 : i64, total_experts = 4 : i64} -> tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}
