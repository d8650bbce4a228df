// CostOpInterface models of upstream ops (CostExternalModels.h,
// docs/CostModel.md). linalg: loop iterations x arithmetic ops in the body;
// bytes are the inputs plus the inits written, and read too where the body
// uses their old value. tosa: multiply-
// accumulates from the shapes, one operation per element otherwise; bytes
// are the default. scf.for and scf.if: summed from their bodies.
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
  // expected-remark @below {{flops = 0, bytes = 256}}
  %0 = linalg.fill ins(%v : f32) outs(%t : tensor<4x16xf32>)
      -> tensor<4x16xf32>
  // On buffers the init is written in place: the same 128 bytes.
  // expected-remark @below {{flops = 0, bytes = 128}}
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
  // expected-remark @below {{flops = 0, bytes = 256}}
  %1 = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%t : tensor<8x4xf32>)
      permutation = [1, 0]
  // One math.exp per element.
  // expected-remark @below {{flops = 32, bytes = 256}}
  %2 = linalg.elementwise kind=#linalg.elementwise_kind<exp>
      ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 32, bytes = 384}}
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

// tosa elementwise ops: one operation per result element, the default
// bytes (mul's shift operand is one byte). Reductions: one operation per
// input element. Data movement (transpose, reshape): no arithmetic, the
// default bytes; tosa.const and tosa.const_shape implement nothing.
func.func @tosa_other(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-remark @below {{flops = 32, bytes = 384}}
  %0 = tosa.add %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-remark @below {{flops = 32, bytes = 385}}
  %1 = tosa.mul %0, %x, %shift : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  // expected-remark @below {{flops = 32, bytes = 256}}
  %2 = tosa.exp %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // 32 adds; 128 + 16 bytes.
  // expected-remark @below {{flops = 32, bytes = 144}}
  %3 = tosa.reduce_sum %2 {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // expected-remark @below {{flops = 4, bytes = 32}}
  %4 = tosa.rsqrt %3 : (tensor<4x1xf32>) -> tensor<4x1xf32>
  // expected-remark @below {{flops = 32, bytes = 272}}
  %5 = tosa.sub %2, %4 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %shape = tosa.const_shape {values = dense<[8, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  // A view: no cost of its own, nor a remark.
  %6 = tosa.reshape %5, %shape : (tensor<4x8xf32>, !tosa.shape<2>) -> tensor<8x4xf32>
  // expected-remark @below {{flops = 0, bytes = 256}}
  %7 = tosa.transpose %6 {perms = array<i32: 1, 0>} : (tensor<8x4xf32>) -> tensor<4x8xf32>
  return %6 : tensor<8x4xf32>
}

// -----

// tensor.insert_slice writes its source into the destination's buffer: the
// source is read and written once (2 * 16 bytes). tensor.concat has no
// model.
func.func @tensor_ops(%d: tensor<4x8xf32>, %s: tensor<1x4xf32>)
    -> tensor<8x8xf32> {
  // expected-remark @below {{flops = 0, bytes = 32}}
  %0 = tensor.insert_slice %s into %d[0, 0] [1, 4] [1, 1]
      : tensor<1x4xf32> into tensor<4x8xf32>
  %1 = tensor.concat dim(0) %0, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

// scf.for with constant bounds: its body's counts times the trip count,
// ceil((10 - 2) / 3) = 3. Constants, views, tensor.empty, index arithmetic
// and the yield count nothing.
func.func @scf_for(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                   %c: tensor<4x16xf32>, %n: index) -> tensor<4x16xf32> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  // 3 * (1024 + 64) flops, 3 * (1152 + 1024) bytes.
  // expected-remark @below {{flops = 3264, bytes = 5760}}
  %0 = scf.for %i = %c2 to %c10 step %c3 iter_args(%acc = %c) -> tensor<4x16xf32> {
    %j = arith.addi %i, %c2 : index
    %e = tensor.empty() : tensor<4x16xf32>
    %v = tensor.extract_slice %a[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> to tensor<4x8xf32>
    // expected-remark @below {{flops = 1024, bytes = 1152}}
    %m = linalg.matmul ins(%v, %b : tensor<4x8xf32>, tensor<8x16xf32>)
        outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
    // expected-remark @below {{flops = 64, bytes = 768}}
    %s = linalg.add ins(%m, %m : tensor<4x16xf32>, tensor<4x16xf32>)
        outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  // An upper bound that is not a constant: the trip count, and with it the
  // cost, is unknown.
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %1 = scf.for %i = %c2 to %n step %c3 iter_args(%acc = %0) -> tensor<4x16xf32> {
    // expected-remark @below {{flops = 64, bytes = 768}}
    %s = linalg.add ins(%acc, %acc : tensor<4x16xf32>, tensor<4x16xf32>)
        outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  // No iteration: nothing.
  // expected-remark @below {{flops = 0, bytes = 0}}
  %2 = scf.for %i = %c10 to %c2 step %c3 iter_args(%acc = %1) -> tensor<4x16xf32> {
    // expected-remark @below {{flops = 64, bytes = 768}}
    %s = linalg.add ins(%acc, %acc : tensor<4x16xf32>, tensor<4x16xf32>)
        outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  return %2 : tensor<4x16xf32>
}

// -----

// scf.if: the larger FLOPs and the larger bytes of its two branches. A loop
// nest multiplies the trip counts. An op without a model that touches a
// tensor leaves its region's cost unknown.
func.func @scf_if(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>, %cond: i1)
    -> (tensor<4x16xf32>, tensor<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // then: 64 flops, 768 bytes; else: 0 flops, 2 * 512 bytes.
  // expected-remark @below {{flops = 64, bytes = 1024}}
  %0 = scf.if %cond -> tensor<4x16xf32> {
    // expected-remark @below {{flops = 64, bytes = 768}}
    %s = linalg.add ins(%x, %x : tensor<4x16xf32>, tensor<4x16xf32>)
        outs(%y : tensor<4x16xf32>) -> tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  } else {
    // expected-remark @below {{flops = 0, bytes = 512}}
    %t = linalg.transpose ins(%x : tensor<4x16xf32>) outs(%y : tensor<4x16xf32>)
        permutation = [0, 1]
    // expected-remark @below {{flops = 0, bytes = 512}}
    %u = linalg.transpose ins(%t : tensor<4x16xf32>) outs(%y : tensor<4x16xf32>)
        permutation = [0, 1]
    scf.yield %u : tensor<4x16xf32>
  }
  // 2 * 2 * 64 flops, 2 * 2 * 768 bytes.
  // expected-remark @below {{flops = 256, bytes = 3072}}
  %1 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %0) -> tensor<4x16xf32> {
    // expected-remark @below {{flops = 128, bytes = 1536}}
    %inner = scf.for %j = %c0 to %c2 step %c1 iter_args(%b = %a) -> tensor<4x16xf32> {
      // expected-remark @below {{flops = 64, bytes = 768}}
      %s = linalg.add ins(%b, %b : tensor<4x16xf32>, tensor<4x16xf32>)
          outs(%b : tensor<4x16xf32>) -> tensor<4x16xf32>
      scf.yield %s : tensor<4x16xf32>
    }
    scf.yield %inner : tensor<4x16xf32>
  }
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %2 = scf.if %cond -> tensor<8x16xf32> {
    %c = tensor.concat dim(0) %x, %1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    scf.yield %c : tensor<8x16xf32>
  } else {
    %c = tensor.concat dim(0) %1, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
    scf.yield %c : tensor<8x16xf32>
  }
  return %1, %2 : tensor<4x16xf32>, tensor<8x16xf32>
}

// -----

// A dynamic operand whose extent another operand fixes: the loop range is
// static, and so are its bytes (64 + 64 read, 64 written).
#id = affine_map<(d0) -> (d0)>
func.func @linalg_dynamic_operand(%a: tensor<16xf32>, %s: tensor<?xf32>)
    -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  // expected-remark @below {{flops = 16, bytes = 192}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %s : tensor<16xf32>, tensor<?xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// tosa.gather reads the rows it picks (2 x 4 x 4 bytes) and its indices,
// not the whole table.
func.func @tosa_gather(%t: tensor<1x1024x4xf32>, %i: tensor<1x2xi32>) -> tensor<1x2x4xf32> {
  // expected-remark @below {{flops = 0, bytes = 72}}
  %g = tosa.gather %t, %i : (tensor<1x1024x4xf32>, tensor<1x2xi32>) -> tensor<1x2x4xf32>
  return %g : tensor<1x2x4xf32>
}

// -----

// A call costs its callee's body.
func.func private @scale(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-remark @below {{flops = 16, bytes = 192}}
  %r = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>) outs(%x : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
func.func @call(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-remark @below {{flops = 16, bytes = 192}}
  %r = func.call @scale(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
