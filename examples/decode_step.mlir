// One decode step of a single attention layer whose KV cache lives in the
// remote memory pool between steps.
//
// The cache arrives as a remote value. Its prefetch is issued before the
// query projection, so the copy overlaps that matmul; the await stalls compute
// only if the copy has not landed by then. The appended cache goes back to
// the pool, and its device buffer is released once that copy completes.
func.func @decode_step(%x: tensor<1x4096xbf16>,
                       %wq: tensor<4096x4096xbf16>,
                       %wo: tensor<4096x4096xbf16>,
                       %kv_remote: !ho.remote<tensor<2x8x4096x128xbf16>>)
    -> (tensor<1x4096xbf16>, !ho.remote<tensor<2x8x4096x128xbf16>>) {
  %kv_future = ho.prefetch %kv_remote
      : !ho.remote<tensor<2x8x4096x128xbf16>> -> !ho.future<tensor<2x8x4096x128xbf16>>
  %norm = ho.compute "rmsnorm"(%x)
      : (tensor<1x4096xbf16>) -> tensor<1x4096xbf16>
  %q = ho.compute "matmul"(%norm, %wq) {flops = 33554432 : i64}
      : (tensor<1x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<1x4096xbf16>
  %kv = ho.await %kv_future
      : !ho.future<tensor<2x8x4096x128xbf16>> -> tensor<2x8x4096x128xbf16>
  // The new token's keys and values are written into the cache in place.
  %kv_next = ho.compute "kv_append"(%kv, %norm) {tied_operands = array<i64: 0>}
      : (tensor<2x8x4096x128xbf16>, tensor<1x4096xbf16>) -> tensor<2x8x4096x128xbf16>
  %attn = ho.compute "attention"(%q, %kv_next)
      : (tensor<1x4096xbf16>, tensor<2x8x4096x128xbf16>) -> tensor<1x4096xbf16>
  %kv_back = ho.offload %kv_next
      : tensor<2x8x4096x128xbf16> -> !ho.remote<tensor<2x8x4096x128xbf16>>
  %out = ho.compute "matmul"(%attn, %wo) {flops = 33554432 : i64}
      : (tensor<1x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<1x4096xbf16>
  return %out, %kv_back : tensor<1x4096xbf16>, !ho.remote<tensor<2x8x4096x128xbf16>>
}
