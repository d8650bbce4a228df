// CostOpInterface models of upstream ops (CostExternalModels.h,
// docs/CostModel.md). linalg: loop iterations x arithmetic ops in the body;
// bytes are the inputs plus the inits read and written. tosa: multiply-
// accumulates from the shapes; bytes are the default.
// RUN: hyperoffload-opt %s --test-ho-cost-interface -verify-diagnostics -split-input-file

// A named matmul's body is mulf + addf: 2 per iteration of 4x16x8.
func.func @linalg_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                         %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // 2 * 4*16*8 = 1024; 128 + 512 bytes of inputs, 2 * 256 of the init.
  // expected-remark @below {{flops = 1024, bytes = 1152}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Widening casts in the body (bf16 -> f32) are not arithmetic: still 2.
func.func @linalg_matmul_mixed(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>,
                               %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // 64 + 256 bytes of inputs, 2 * 256 of the init.
  // expected-remark @below {{flops = 1024, bytes = 832}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>)
      outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// The same matmul written as linalg.generic; the constant is not counted.
func.func @linalg_generic(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                          %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-remark @below {{flops = 1024, bytes = 1152}}
  %0 = linalg.generic {indexing_maps = [#lhs, #rhs, #acc],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%c : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %sum: f32):
    %one = arith.constant 1.0 : f32
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %sum, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A fill computes nothing; its scalar is not memory traffic.
func.func @linalg_fill(%v: f32, %t: tensor<4x16xf32>, %m: memref<4x8xf32>)
    -> tensor<4x16xf32> {
  // expected-remark @below {{flops = 0, bytes = 512}}
  %0 = linalg.fill ins(%v : f32) outs(%t : tensor<4x16xf32>)
      -> tensor<4x16xf32>
  // On buffers the init is written in place: the same 2 * 128 bytes.
  // expected-remark @below {{flops = 0, bytes = 256}}
  linalg.fill ins(%v : f32) outs(%m : memref<4x8xf32>)
  return %0 : tensor<4x16xf32>
}

// -----

// conv_2d_nhwc_hwcf: loops N, OH, OW, F, KH, KW, C around mulf + addf.
func.func @linalg_conv(%in: tensor<1x10x10x3xf32>, %w: tensor<3x3x3x8xf32>,
                       %out: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  // 2 * 1*8*8*8 * 3*3*3 = 27648; 1200 + 864 + 2 * 2048 bytes.
  // expected-remark @below {{flops = 27648, bytes = 6160}}
  %0 = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x10x10x3xf32>, tensor<3x3x3x8xf32>)
      outs(%out : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %0 : tensor<1x8x8x8xf32>
}

// -----

// Reductions, elementwise ops on buffers, data movement.
func.func @linalg_other(%x: tensor<4x8xf32>, %r: tensor<4xf32>,
                        %t: tensor<8x4xf32>, %a: memref<4x8xf32>,
                        %b: memref<4x8xf32>, %c: memref<4x8xf32>) {
  // One addf per input element; 128 + 2 * 16 bytes.
  // expected-remark @below {{flops = 32, bytes = 160}}
  %0 = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%r : tensor<4xf32>)
      dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  // expected-remark @below {{flops = 0, bytes = 384}}
  %1 = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%t : tensor<8x4xf32>)
      permutation = [1, 0]
  // One math.exp per element.
  // expected-remark @below {{flops = 32, bytes = 384}}
  %2 = linalg.elementwise kind=#linalg.elementwise_kind<exp>
      ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 32, bytes = 512}}
  linalg.add ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>)
      outs(%c : memref<4x8xf32>)
  return
}

// -----

// A dynamic loop range leaves the cost unknown.
func.func @linalg_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>,
                          %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x16xf32>)
      outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// tosa.matmul [N, H, C] x [N, C, W]: 2 * N*H*W*C. The zero points are
// one-element tensors and count in the default bytes.
func.func @tosa_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>,
                       %zp: tensor<1xf32>, %d: tensor<?x4x8xf32>)
    -> tensor<2x4x16xf32> {
  // 2 * 2*4*16*8 = 2048; 256 + 1024 + 4 + 4 + 512 bytes.
  // expected-remark @below {{flops = 2048, bytes = 1800}}
  %0 = tosa.matmul %a, %b, %zp, %zp
      : (tensor<2x4x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>)
      -> tensor<2x4x16xf32>
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %1 = tosa.matmul %d, %b, %zp, %zp
      : (tensor<?x4x8xf32>, tensor<2x8x16xf32>, tensor<1xf32>, tensor<1xf32>)
      -> tensor<?x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// tosa.conv2d, weight [OC, KH, KW, IC]: 2 * elements(output) * KH*KW*IC.
// tosa.depthwise_conv2d, weight [KH, KW, C, M]: 2 * elements(output) * KH*KW.
func.func @tosa_conv(%in: tensor<1x10x10x3xf32>, %w: tensor<8x3x3x3xf32>,
                     %bias: tensor<8xf32>, %dw: tensor<3x3x3x2xf32>,
                     %dbias: tensor<6xf32>, %zp: tensor<1xf32>) {
  // 2 * 512 * 27 = 27648; 1200 + 864 + 32 + 4 + 4 + 2048 bytes.
  // expected-remark @below {{flops = 27648, bytes = 4152}}
  %0 = tosa.conv2d %in, %w, %bias, %zp, %zp
      {acc_type = f32, pad = array<i64: 0, 0, 0, 0>,
       stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x10x10x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>,
         tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  // 2 * 384 * 9 = 6912; 1200 + 216 + 24 + 4 + 4 + 1536 bytes.
  // expected-remark @below {{flops = 6912, bytes = 2984}}
  %1 = tosa.depthwise_conv2d %in, %dw, %dbias, %zp, %zp
      {acc_type = f32, pad = array<i64: 0, 0, 0, 0>,
       stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x10x10x3xf32>, tensor<3x3x3x2xf32>, tensor<6xf32>,
         tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x6xf32>
  return
}

// -----

// Ops without a model do not implement the interface: no remark.
func.func @no_model(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
