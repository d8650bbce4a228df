// examples/transformer_block_linalg.mlir at test sizes: 16 tokens, hidden
// size 64 in 4 heads of 16, an MLP of 96; the same ops in the same order.
#rows = affine_map<(s, d) -> (s, d)>
#row = affine_map<(s, d) -> (s)>
#col = affine_map<(s, d) -> (d)>
#vec = affine_map<(s) -> (s)>
#scores = affine_map<(h, q, k) -> (h, q, k)>
#per_query = affine_map<(h, q, k) -> (h, q)>

func.func @transformer_block(
    %x: tensor<16x64xbf16>,
    %attn_norm: tensor<64xbf16>,
    %wq: tensor<64x64xbf16>, %wk: tensor<64x64xbf16>,
    %wv: tensor<64x64xbf16>, %wo: tensor<64x64xbf16>,
    %mlp_norm: tensor<64xbf16>,
    %w_gate: tensor<64x96xbf16>, %w_up: tensor<64x96xbf16>,
    %w_down: tensor<96x64xbf16>) -> tensor<16x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
  %neg_inf = arith.constant 0xFF80 : bf16
  %one = arith.constant 1.0 : f32
  %hidden = arith.constant 64.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %scale = arith.constant 0.25 : f32

  %ss_empty = tensor.empty() : tensor<16xf32>
  %ss_zero = linalg.fill ins(%zero : f32) outs(%ss_empty : tensor<16xf32>) -> tensor<16xf32>
  %ss = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xbf16>) outs(%ss_zero : tensor<16xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %f = arith.extf %v : bf16 to f32
    %sq = arith.mulf %f, %f : f32
    %sum = arith.addf %acc, %sq : f32
    linalg.yield %sum : f32
  } -> tensor<16xf32>
  %rinv_empty = tensor.empty() : tensor<16xf32>
  %rinv = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%ss : tensor<16xf32>) outs(%rinv_empty : tensor<16xf32>) {
  ^bb0(%s: f32, %out: f32):
    %mean = arith.divf %s, %hidden : f32
    %shifted = arith.addf %mean, %eps : f32
    %r = math.rsqrt %shifted : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %h_empty = tensor.empty() : tensor<16x64xbf16>
  %h = linalg.generic {indexing_maps = [#rows, #row, #col, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %rinv, %attn_norm : tensor<16x64xbf16>, tensor<16xf32>, tensor<64xbf16>)
      outs(%h_empty : tensor<16x64xbf16>) {
  ^bb0(%v: bf16, %r: f32, %w: bf16, %out: bf16):
    %f = arith.extf %v : bf16 to f32
    %wf = arith.extf %w : bf16 to f32
    %n = arith.mulf %f, %r : f32
    %y = arith.mulf %n, %wf : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<16x64xbf16>

  %q_empty = tensor.empty() : tensor<16x64xbf16>
  %q_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%q_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %q = linalg.matmul ins(%h, %wq : tensor<16x64xbf16>, tensor<64x64xbf16>)
      outs(%q_zero : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %k_empty = tensor.empty() : tensor<16x64xbf16>
  %k_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%k_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %k = linalg.matmul ins(%h, %wk : tensor<16x64xbf16>, tensor<64x64xbf16>)
      outs(%k_zero : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %v_empty = tensor.empty() : tensor<16x64xbf16>
  %v_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%v_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %v = linalg.matmul ins(%h, %wv : tensor<16x64xbf16>, tensor<64x64xbf16>)
      outs(%v_zero : tensor<16x64xbf16>) -> tensor<16x64xbf16>

  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 4, 16]
      : tensor<16x64xbf16> into tensor<16x4x16xbf16>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [16, 4, 16]
      : tensor<16x64xbf16> into tensor<16x4x16xbf16>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [16, 4, 16]
      : tensor<16x64xbf16> into tensor<16x4x16xbf16>
  %qh_empty = tensor.empty() : tensor<4x16x16xbf16>
  %qh = linalg.transpose ins(%q3 : tensor<16x4x16xbf16>)
      outs(%qh_empty : tensor<4x16x16xbf16>) permutation = [1, 0, 2]
  %kh_empty = tensor.empty() : tensor<4x16x16xbf16>
  %kh = linalg.transpose ins(%k3 : tensor<16x4x16xbf16>)
      outs(%kh_empty : tensor<4x16x16xbf16>) permutation = [1, 2, 0]
  %vh_empty = tensor.empty() : tensor<4x16x16xbf16>
  %vh = linalg.transpose ins(%v3 : tensor<16x4x16xbf16>)
      outs(%vh_empty : tensor<4x16x16xbf16>) permutation = [1, 0, 2]

  %s_empty = tensor.empty() : tensor<4x16x16xbf16>
  %s_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%s_empty : tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>
  %s = linalg.batch_matmul ins(%qh, %kh : tensor<4x16x16xbf16>, tensor<4x16x16xbf16>)
      outs(%s_zero : tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>

  %max_empty = tensor.empty() : tensor<4x16xbf16>
  %max_init = linalg.fill ins(%neg_inf : bf16) outs(%max_empty : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %max = linalg.generic {indexing_maps = [#scores, #per_query], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<4x16x16xbf16>) outs(%max_init : tensor<4x16xbf16>) {
  ^bb0(%e: bf16, %acc: bf16):
    %m = arith.maximumf %acc, %e : bf16
    linalg.yield %m : bf16
  } -> tensor<4x16xbf16>
  %exp_empty = tensor.empty() : tensor<4x16x16xbf16>
  %exp = linalg.generic {indexing_maps = [#scores, #per_query, #scores], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : tensor<4x16x16xbf16>, tensor<4x16xbf16>)
      outs(%exp_empty : tensor<4x16x16xbf16>) {
  ^bb0(%e: bf16, %m: bf16, %out: bf16):
    %ef = arith.extf %e : bf16 to f32
    %mf = arith.extf %m : bf16 to f32
    %d = arith.subf %ef, %mf : f32
    %sd = arith.mulf %d, %scale : f32
    %p = math.exp %sd : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x16x16xbf16>
  %sum_empty = tensor.empty() : tensor<4x16xf32>
  %sum_zero = linalg.fill ins(%zero : f32) outs(%sum_empty : tensor<4x16xf32>) -> tensor<4x16xf32>
  %sum = linalg.generic {indexing_maps = [#scores, #per_query], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<4x16x16xbf16>) outs(%sum_zero : tensor<4x16xf32>) {
  ^bb0(%e: bf16, %acc: f32):
    %ef = arith.extf %e : bf16 to f32
    %a = arith.addf %acc, %ef : f32
    linalg.yield %a : f32
  } -> tensor<4x16xf32>
  %probs = linalg.generic {indexing_maps = [#per_query, #scores], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sum : tensor<4x16xf32>) outs(%exp : tensor<4x16x16xbf16>) {
  ^bb0(%total: f32, %e: bf16):
    %ef = arith.extf %e : bf16 to f32
    %p = arith.divf %ef, %total : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x16x16xbf16>

  %c_empty = tensor.empty() : tensor<4x16x16xbf16>
  %c_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%c_empty : tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>
  %ctx = linalg.batch_matmul ins(%probs, %vh : tensor<4x16x16xbf16>, tensor<4x16x16xbf16>)
      outs(%c_zero : tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>
  %ct_empty = tensor.empty() : tensor<16x4x16xbf16>
  %ct = linalg.transpose ins(%ctx : tensor<4x16x16xbf16>)
      outs(%ct_empty : tensor<16x4x16xbf16>) permutation = [1, 0, 2]
  %merged = tensor.collapse_shape %ct [[0], [1, 2]]
      : tensor<16x4x16xbf16> into tensor<16x64xbf16>
  %o_empty = tensor.empty() : tensor<16x64xbf16>
  %o_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%o_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %o = linalg.matmul ins(%merged, %wo : tensor<16x64xbf16>, tensor<64x64xbf16>)
      outs(%o_zero : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %r1_empty = tensor.empty() : tensor<16x64xbf16>
  %r1 = linalg.add ins(%x, %o : tensor<16x64xbf16>, tensor<16x64xbf16>)
      outs(%r1_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>

  %ss2_empty = tensor.empty() : tensor<16xf32>
  %ss2_zero = linalg.fill ins(%zero : f32) outs(%ss2_empty : tensor<16xf32>) -> tensor<16xf32>
  %ss2 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%r1 : tensor<16x64xbf16>) outs(%ss2_zero : tensor<16xf32>) {
  ^bb0(%e: bf16, %acc: f32):
    %f = arith.extf %e : bf16 to f32
    %sq = arith.mulf %f, %f : f32
    %a = arith.addf %acc, %sq : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %rinv2_empty = tensor.empty() : tensor<16xf32>
  %rinv2 = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%ss2 : tensor<16xf32>) outs(%rinv2_empty : tensor<16xf32>) {
  ^bb0(%s2: f32, %out: f32):
    %mean = arith.divf %s2, %hidden : f32
    %shifted = arith.addf %mean, %eps : f32
    %r = math.rsqrt %shifted : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %m_empty = tensor.empty() : tensor<16x64xbf16>
  %m = linalg.generic {indexing_maps = [#rows, #row, #col, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %rinv2, %mlp_norm : tensor<16x64xbf16>, tensor<16xf32>, tensor<64xbf16>)
      outs(%m_empty : tensor<16x64xbf16>) {
  ^bb0(%e: bf16, %r: f32, %w: bf16, %out: bf16):
    %f = arith.extf %e : bf16 to f32
    %wf = arith.extf %w : bf16 to f32
    %n = arith.mulf %f, %r : f32
    %y = arith.mulf %n, %wf : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<16x64xbf16>

  %g_empty = tensor.empty() : tensor<16x96xbf16>
  %g_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%g_empty : tensor<16x96xbf16>) -> tensor<16x96xbf16>
  %gate = linalg.matmul ins(%m, %w_gate : tensor<16x64xbf16>, tensor<64x96xbf16>)
      outs(%g_zero : tensor<16x96xbf16>) -> tensor<16x96xbf16>
  %u_empty = tensor.empty() : tensor<16x96xbf16>
  %u_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%u_empty : tensor<16x96xbf16>) -> tensor<16x96xbf16>
  %up = linalg.matmul ins(%m, %w_up : tensor<16x64xbf16>, tensor<64x96xbf16>)
      outs(%u_zero : tensor<16x96xbf16>) -> tensor<16x96xbf16>
  %act_empty = tensor.empty() : tensor<16x96xbf16>
  %act = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<16x96xbf16>, tensor<16x96xbf16>)
      outs(%act_empty : tensor<16x96xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %out: bf16):
    %gf = arith.extf %g : bf16 to f32
    %uf = arith.extf %u : bf16 to f32
    %ng = arith.negf %gf : f32
    %en = math.exp %ng : f32
    %den = arith.addf %en, %one : f32
    %silu = arith.divf %gf, %den : f32
    %y = arith.mulf %silu, %uf : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<16x96xbf16>
  %d_empty = tensor.empty() : tensor<16x64xbf16>
  %d_zero = linalg.fill ins(%zero_bf16 : bf16) outs(%d_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %down = linalg.matmul ins(%act, %w_down : tensor<16x96xbf16>, tensor<96x64xbf16>)
      outs(%d_zero : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  %out_empty = tensor.empty() : tensor<16x64xbf16>
  %out = linalg.add ins(%r1, %down : tensor<16x64xbf16>, tensor<16x64xbf16>)
      outs(%out_empty : tensor<16x64xbf16>) -> tensor<16x64xbf16>
  return %out : tensor<16x64xbf16>
}
