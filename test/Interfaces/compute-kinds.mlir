// The FLOP and byte formulas of the ho.compute kinds (ComputeKinds.h,
// docs/CostModel.md). Each number is worked out in the comment above it.
// RUN: hyperoffload-opt %s --test-ho-cost-interface -verify-diagnostics -split-input-file

// matmul: 2 * elements(result) * K. Bytes are the default.
func.func @matmul(%x: tensor<64x128xbf16>, %w: tensor<128x32xbf16>) {
  // 2 * 64*32 * 128 = 524288; 16 KiB + 8 KiB read, 8 KiB written.
  // expected-remark @below {{flops = 524288, bytes = 32768}}
  %y = ho.compute "matmul"(%x, %w)
      : (tensor<64x128xbf16>, tensor<128x32xbf16>) -> tensor<64x32xf32>
  return
}

// -----

// batch_matmul with a 2-D B broadcast over the batch, and with a full batch.
func.func @batch_matmul(%a: tensor<4x16x32xf32>, %b: tensor<32x8xf32>,
                        %c: tensor<2x3x4x5xf32>, %d: tensor<2x3x5x6xf32>) {
  // 2 * 4*16*8 * 32 = 32768; 8192 + 1024 + 2048 bytes.
  // expected-remark @below {{flops = 32768, bytes = 11264}}
  %0 = ho.compute "batch_matmul"(%a, %b)
      : (tensor<4x16x32xf32>, tensor<32x8xf32>) -> tensor<4x16x8xf32>
  // 2 * 2*3*4*6 * 5 = 1440; (120 + 180 + 144) * 4 bytes.
  // expected-remark @below {{flops = 1440, bytes = 1776}}
  %1 = ho.compute "batch_matmul"(%c, %d)
      : (tensor<2x3x4x5xf32>, tensor<2x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return
}

// -----

// A matmul whose K does not match falls back to the defaults rather than
// guess: one per result element, every tensor once.
func.func @matmul_mismatch(%a: tensor<4x8xf32>, %b: tensor<6x2xf32>) {
  // 4*2 = 8; 128 + 48 + 32 bytes.
  // expected-remark @below {{flops = 8, bytes = 208}}
  %0 = ho.compute "matmul"(%a, %b)
      : (tensor<4x8xf32>, tensor<6x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

// attention with grouped-query heads (H = 4, Hkv = 2), Sq = 8, Sk = 32,
// D = Dv = 16: B*H*S*(2*(D + Dv) + 5) with S the number of scores.
func.func @attention(%q: tensor<1x4x8x16xf16>, %k: tensor<1x2x32x16xf16>,
                     %v: tensor<1x2x32x16xf16>) {
  // S = 8*32 = 256: 4 * 256 * 69 = 70656; 1024 + 2048 + 2048 + 1024 bytes.
  // expected-remark @below {{flops = 70656, bytes = 6144}}
  %0 = ho.compute "attention"(%q, %k, %v)
      : (tensor<1x4x8x16xf16>, tensor<1x2x32x16xf16>, tensor<1x2x32x16xf16>)
      -> tensor<1x4x8x16xf16>
  // Causal, the 8 queries the last of 32 positions: they see 25..32 keys,
  // S = 8*24 + 8*9/2 = 228: 4 * 228 * 69 = 62928.
  // expected-remark @below {{flops = 62928, bytes = 6144}}
  %1 = ho.compute "attention"(%q, %k, %v) {causal}
      : (tensor<1x4x8x16xf16>, tensor<1x2x32x16xf16>, tensor<1x2x32x16xf16>)
      -> tensor<1x4x8x16xf16>
  return
}

// -----

// Causal prefill (Sq = Sk = 4): S = 4*5/2 = 10 of the 16 scores.
func.func @causal_prefill(%q: tensor<1x2x4x8xf32>) {
  // 2 heads * 10 * (2*16 + 5) = 740; 4 tensors of 256 bytes.
  // expected-remark @below {{flops = 740, bytes = 1024}}
  %0 = ho.compute "attention"(%q, %q, %q) {causal}
      : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
      -> tensor<1x2x4x8xf32>
  return
}

// -----

// Attention that breaks the convention gets the defaults: a causal mask with
// more queries than keys, and 3 heads that 2 KV heads cannot share.
func.func @attention_mismatch(%q: tensor<1x1x4x8xf32>,
                              %k: tensor<1x1x2x8xf32>,
                              %q3: tensor<1x3x2x8xf32>,
                              %k2: tensor<1x2x2x8xf32>) {
  // 4*8 = 32; 128 + 64 + 64 + 128 bytes.
  // expected-remark @below {{flops = 32, bytes = 384}}
  %0 = ho.compute "attention"(%q, %k, %k) {causal}
      : (tensor<1x1x4x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>)
      -> tensor<1x1x4x8xf32>
  // 3*2*8 = 48; 192 + 128 + 128 + 192 bytes.
  // expected-remark @below {{flops = 48, bytes = 640}}
  %1 = ho.compute "attention"(%q3, %k2, %k2)
      : (tensor<1x3x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>)
      -> tensor<1x3x2x8xf32>
  return
}

// -----

// Elementwise kinds: a fixed count per result element (32 here); bytes are
// the default (128 per f32 tensor).
func.func @elementwise(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) {
  // expected-remark @below {{flops = 32, bytes = 384}}
  %add = ho.compute "add"(%x, %y)
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 32, bytes = 256}}
  %relu = ho.compute "relu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // 4 per element.
  // expected-remark @below {{flops = 128, bytes = 256}}
  %silu = ho.compute "silu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // 9 per element.
  // expected-remark @below {{flops = 288, bytes = 256}}
  %gelu = ho.compute "gelu"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // 5 per element: silu(gate) * up.
  // expected-remark @below {{flops = 160, bytes = 384}}
  %swiglu = ho.compute "swiglu"(%x, %y)
      : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // 3 per element.
  // expected-remark @below {{flops = 96, bytes = 256}}
  %rope = ho.compute "rope"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 0, bytes = 256}}
  %copy = ho.compute "copy"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 0, bytes = 192}}
  %cast = ho.compute "cast"(%x) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return
}

// -----

// Norms and softmax: 4 (rmsnorm), 7 (layernorm), 5 (softmax) per element.
func.func @norms(%x: tensor<4x8xf32>, %w: tensor<8xf32>) {
  // expected-remark @below {{flops = 128, bytes = 288}}
  %0 = ho.compute "rmsnorm"(%x, %w)
      : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 224, bytes = 320}}
  %1 = ho.compute "layernorm"(%x, %w, %w)
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 160, bytes = 256}}
  %2 = ho.compute "softmax"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// embedding: the gathered rows are read and written, not the whole table.
func.func @embedding(%table: tensor<1000x64xbf16>, %ids: tensor<2x8xi32>) {
  // 2 * (2*8*64*2 = 2048) + 2*8*4 = 4160 bytes of a 128000-byte table.
  // expected-remark @below {{flops = 0, bytes = 4160}}
  %0 = ho.compute "embedding"(%table, %ids)
      : (tensor<1000x64xbf16>, tensor<2x8xi32>) -> tensor<2x8x64xbf16>
  // A row width that does not match the table's: the defaults,
  // 2*8*32 = 512 results; 128000 + 64 + 1024 bytes.
  // expected-remark @below {{flops = 512, bytes = 129088}}
  %1 = ho.compute "gather"(%table, %ids)
      : (tensor<1000x64xbf16>, tensor<2x8xi32>) -> tensor<2x8x32xbf16>
  return
}

// -----

// In-place cache updates move the new entries only.
func.func @kv_append(%cache: tensor<4096x128xbf16>, %kv: tensor<1x128xbf16>,
                     %kc: tensor<1024x64xbf16>, %vc: tensor<1024x64xbf16>,
                     %k: tensor<2x64xbf16>, %v: tensor<2x64xbf16>) {
  // 2 * 256 bytes.
  // expected-remark @below {{flops = 0, bytes = 512}}
  %0 = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
      : (tensor<4096x128xbf16>, tensor<1x128xbf16>) -> tensor<4096x128xbf16>
  // Two caches updated in place: 2 * (256 + 256) bytes.
  // expected-remark @below {{flops = 0, bytes = 1024}}
  %1:2 = ho.compute "cache_update"(%kc, %vc, %k, %v)
      {tied_operands = array<i64: 0, 1>}
      : (tensor<1024x64xbf16>, tensor<1024x64xbf16>, tensor<2x64xbf16>,
         tensor<2x64xbf16>) -> (tensor<1024x64xbf16>, tensor<1024x64xbf16>)
  // Without tied_operands the result is a fresh copy: the defaults,
  // 4096*128 results; 1 MiB + 256 bytes read, 1 MiB written.
  // expected-remark @below {{flops = 524288, bytes = 2097408}}
  %2 = ho.compute "kv_append"(%cache, %kv)
      : (tensor<4096x128xbf16>, tensor<1x128xbf16>) -> tensor<4096x128xbf16>
  return
}

// -----

// Collectives: the reductions count one operation per result element.
func.func @collectives(%x: tensor<1024xf32>, %s: tensor<256xf32>) {
  // expected-remark @below {{flops = 1024, bytes = 8192}}
  %0 = ho.compute "allreduce"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
  // expected-remark @below {{flops = 256, bytes = 5120}}
  %1 = ho.compute "reduce_scatter"(%x) : (tensor<1024xf32>) -> tensor<256xf32>
  // expected-remark @below {{flops = 0, bytes = 5120}}
  %2 = ho.compute "allgather"(%s) : (tensor<256xf32>) -> tensor<1024xf32>
  // expected-remark @below {{flops = 0, bytes = 2048}}
  %3 = ho.compute "all_to_all"(%s) : (tensor<256xf32>) -> tensor<256xf32>
  return
}

// -----

// Hints win over the formulas; dynamic shapes leave the formulas unknown.
func.func @hints_and_dynamic(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>,
                             %d: tensor<?x8xf32>,
                             %table: tensor<100x8xf32>, %ids: tensor<?xi32>) {
  // expected-remark @below {{flops = 7, bytes = 9}}
  %0 = ho.compute "matmul"(%x, %w) {flops = 7 : i64, bytes = 9 : i64}
      : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %1 = ho.compute "matmul"(%d, %w)
      : (tensor<?x8xf32>, tensor<8x2xf32>) -> tensor<?x2xf32>
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %2 = ho.compute "embedding"(%table, %ids)
      : (tensor<100x8xf32>, tensor<?xi32>) -> tensor<?x8xf32>
  return
}
