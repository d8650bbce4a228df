// The transformer block of transformer_block_linalg.mlir in TOSA 1.0, the
// form the ONNX and TFLite importers produce: hidden size 4096, 2048 tokens,
// 32 heads of 128, a SwiGLU MLP of 11008, bf16. No attention mask, no
// rotary embedding.
//
// TOSA's matmul is batched and rank 3, so activations carry a leading batch
// of 1 and the weights are [1, K, N]; `tosa.fully_connected` no longer exists
// in TOSA 1.0. Matmul and mul take their zero points and shift as operands.
// Heads are split with tosa.reshape and tosa.transpose.

func.func @transformer_block(
    %x: tensor<1x2048x4096xbf16>,
    %attn_norm: tensor<1x1x4096xbf16>,
    %wq: tensor<1x4096x4096xbf16>, %wk: tensor<1x4096x4096xbf16>,
    %wv: tensor<1x4096x4096xbf16>, %wo: tensor<1x4096x4096xbf16>,
    %mlp_norm: tensor<1x1x4096xbf16>,
    %w_gate: tensor<1x4096x11008xbf16>, %w_up: tensor<1x4096x11008xbf16>,
    %w_down: tensor<1x11008x4096xbf16>) -> tensor<1x2048x4096xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_hidden = "tosa.const"() <{values = dense<2.44140625e-04> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %scale = "tosa.const"() <{values = dense<0.0883883461> : tensor<1x1x1xbf16>}> : () -> tensor<1x1x1xbf16>
  %heads_shape = tosa.const_shape {values = dense<[2048, 32, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %hidden_shape = tosa.const_shape {values = dense<[1, 2048, 4096]> : tensor<3xindex>} : () -> !tosa.shape<3>

  // RMSNorm: x * rsqrt(mean(x^2) + eps) * weight.
  %sq = tosa.mul %x, %x, %shift : (tensor<1x2048x4096xbf16>, tensor<1x2048x4096xbf16>, tensor<1xi8>) -> tensor<1x2048x4096xbf16>
  %ss = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2048x4096xbf16>) -> tensor<1x2048x1xbf16>
  %mean = tosa.mul %ss, %inv_hidden, %shift : (tensor<1x2048x1xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<1x2048x1xbf16>
  %var = tosa.add %mean, %eps : (tensor<1x2048x1xbf16>, tensor<1x1x1xbf16>) -> tensor<1x2048x1xbf16>
  %rinv = tosa.rsqrt %var : (tensor<1x2048x1xbf16>) -> tensor<1x2048x1xbf16>
  %n = tosa.mul %x, %rinv, %shift : (tensor<1x2048x4096xbf16>, tensor<1x2048x1xbf16>, tensor<1xi8>) -> tensor<1x2048x4096xbf16>
  %h = tosa.mul %n, %attn_norm, %shift : (tensor<1x2048x4096xbf16>, tensor<1x1x4096xbf16>, tensor<1xi8>) -> tensor<1x2048x4096xbf16>

  // Q, K and V projections.
  %q = tosa.matmul %h, %wq, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x4096xbf16>
  %k = tosa.matmul %h, %wk, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x4096xbf16>
  %v = tosa.matmul %h, %wv, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x4096xbf16>

  // Split the heads: Q and V to [heads, seq, 128], K to [heads, 128, seq].
  %q3 = tosa.reshape %q, %heads_shape : (tensor<1x2048x4096xbf16>, !tosa.shape<3>) -> tensor<2048x32x128xbf16>
  %k3 = tosa.reshape %k, %heads_shape : (tensor<1x2048x4096xbf16>, !tosa.shape<3>) -> tensor<2048x32x128xbf16>
  %v3 = tosa.reshape %v, %heads_shape : (tensor<1x2048x4096xbf16>, !tosa.shape<3>) -> tensor<2048x32x128xbf16>
  %qh = tosa.transpose %q3 {perms = array<i32: 1, 0, 2>} : (tensor<2048x32x128xbf16>) -> tensor<32x2048x128xbf16>
  %kh = tosa.transpose %k3 {perms = array<i32: 1, 2, 0>} : (tensor<2048x32x128xbf16>) -> tensor<32x128x2048xbf16>
  %vh = tosa.transpose %v3 {perms = array<i32: 1, 0, 2>} : (tensor<2048x32x128xbf16>) -> tensor<32x2048x128xbf16>

  // Softmax(scale * Q K^T) over the keys.
  %s = tosa.matmul %qh, %kh, %zp, %zp : (tensor<32x2048x128xbf16>, tensor<32x128x2048xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<32x2048x2048xbf16>
  %scaled = tosa.mul %s, %scale, %shift : (tensor<32x2048x2048xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<32x2048x2048xbf16>
  %max = tosa.reduce_max %scaled {axis = 2 : i32} : (tensor<32x2048x2048xbf16>) -> tensor<32x2048x1xbf16>
  %shifted = tosa.sub %scaled, %max : (tensor<32x2048x2048xbf16>, tensor<32x2048x1xbf16>) -> tensor<32x2048x2048xbf16>
  %exp = tosa.exp %shifted : (tensor<32x2048x2048xbf16>) -> tensor<32x2048x2048xbf16>
  %sum = tosa.reduce_sum %exp {axis = 2 : i32} : (tensor<32x2048x2048xbf16>) -> tensor<32x2048x1xbf16>
  %inv_sum = tosa.reciprocal %sum : (tensor<32x2048x1xbf16>) -> tensor<32x2048x1xbf16>
  %probs = tosa.mul %exp, %inv_sum, %shift : (tensor<32x2048x2048xbf16>, tensor<32x2048x1xbf16>, tensor<1xi8>) -> tensor<32x2048x2048xbf16>

  // Probabilities times V, heads merged back, output projection, residual.
  %ctx = tosa.matmul %probs, %vh, %zp, %zp : (tensor<32x2048x2048xbf16>, tensor<32x2048x128xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<32x2048x128xbf16>
  %ct = tosa.transpose %ctx {perms = array<i32: 1, 0, 2>} : (tensor<32x2048x128xbf16>) -> tensor<2048x32x128xbf16>
  %merged = tosa.reshape %ct, %hidden_shape : (tensor<2048x32x128xbf16>, !tosa.shape<3>) -> tensor<1x2048x4096xbf16>
  %o = tosa.matmul %merged, %wo, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x4096xbf16>
  %r1 = tosa.add %x, %o : (tensor<1x2048x4096xbf16>, tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16>

  // RMSNorm before the MLP.
  %sq2 = tosa.mul %r1, %r1, %shift : (tensor<1x2048x4096xbf16>, tensor<1x2048x4096xbf16>, tensor<1xi8>) -> tensor<1x2048x4096xbf16>
  %ss2 = tosa.reduce_sum %sq2 {axis = 2 : i32} : (tensor<1x2048x4096xbf16>) -> tensor<1x2048x1xbf16>
  %mean2 = tosa.mul %ss2, %inv_hidden, %shift : (tensor<1x2048x1xbf16>, tensor<1x1x1xbf16>, tensor<1xi8>) -> tensor<1x2048x1xbf16>
  %var2 = tosa.add %mean2, %eps : (tensor<1x2048x1xbf16>, tensor<1x1x1xbf16>) -> tensor<1x2048x1xbf16>
  %rinv2 = tosa.rsqrt %var2 : (tensor<1x2048x1xbf16>) -> tensor<1x2048x1xbf16>
  %n2 = tosa.mul %r1, %rinv2, %shift : (tensor<1x2048x4096xbf16>, tensor<1x2048x1xbf16>, tensor<1xi8>) -> tensor<1x2048x4096xbf16>
  %m = tosa.mul %n2, %mlp_norm, %shift : (tensor<1x2048x4096xbf16>, tensor<1x1x4096xbf16>, tensor<1xi8>) -> tensor<1x2048x4096xbf16>

  // SwiGLU MLP: down(gate * sigmoid(gate) * up), then the second residual.
  %gate = tosa.matmul %m, %w_gate, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x11008xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x11008xbf16>
  %up = tosa.matmul %m, %w_up, %zp, %zp : (tensor<1x2048x4096xbf16>, tensor<1x4096x11008xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x11008xbf16>
  %sig = tosa.sigmoid %gate : (tensor<1x2048x11008xbf16>) -> tensor<1x2048x11008xbf16>
  %silu = tosa.mul %gate, %sig, %shift : (tensor<1x2048x11008xbf16>, tensor<1x2048x11008xbf16>, tensor<1xi8>) -> tensor<1x2048x11008xbf16>
  %act = tosa.mul %silu, %up, %shift : (tensor<1x2048x11008xbf16>, tensor<1x2048x11008xbf16>, tensor<1xi8>) -> tensor<1x2048x11008xbf16>
  %down = tosa.matmul %act, %w_down, %zp, %zp : (tensor<1x2048x11008xbf16>, tensor<1x11008x4096xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2048x4096xbf16>
  %out = tosa.add %r1, %down : (tensor<1x2048x4096xbf16>, tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16>
  return %out : tensor<1x2048x4096xbf16>
}
