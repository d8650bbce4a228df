// A ResNet basic block in the style of torch-mlir's linalg output for a
// torchvision model: zero padding by tensor.pad, two 3x3 convolutions
// (conv_2d_nchw_fchw) with weights as dense_resource constants, batchnorm
// folded into a scale-and-shift generic with ReLU, the residual add, a
// global sum pool and the collapse to [N, C]; the ml_program global every
// torch-mlir module has. Constants become weight arguments
// (ho-constants-as-arguments), so the plan fetches them.
// REQUIRES: mlir-opt
// RUN: %python %utils/check-front-end-ir.py --opt hyperoffload-opt --mlir-opt %mlir_opt %s | FileCheck %s
// CHECK: resnet-block.mlir: as delivered: peak 4368384 B, memory bound 2614272 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: resnet-block.mlir: canonicalize+cse: peak 4368384 B, memory bound 2614272 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: resnet-block.mlir: inline+canonicalize+cse: peak 4368384 B, memory bound 2614272 B = one-shot; planned, verified, lowered and re-parsed at 4 of 4 budgets
// CHECK: 1 files, 0 failures

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bc = affine_map<(d0, d1, d2, d3) -> (d1)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @forward(%x: tensor<1x64x56x56xf32>) -> tensor<1x64xf32> {
    %w1 = arith.constant dense_resource<w1> : tensor<64x64x3x3xf32>
    %w2 = arith.constant dense_resource<w2> : tensor<64x64x3x3xf32>
    %s1 = arith.constant dense<1.0> : tensor<64xf32>
    %b1 = arith.constant dense<0.5> : tensor<64xf32>
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant -3.40282347E+38 : f32
    %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %zero : f32
    } : tensor<1x64x56x56xf32> to tensor<1x64x58x58xf32>
    %e0 = tensor.empty() : tensor<1x64x56x56xf32>
    %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w1 : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%f0 : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %bn = linalg.generic {indexing_maps = [#map, #bc, #bc, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %s1, %b1 : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e0 : tensor<1x64x56x56xf32>) {
    ^bb0(%in: f32, %s: f32, %b: f32, %out: f32):
      %m = arith.mulf %in, %s : f32
      %a = arith.addf %m, %b : f32
      %r = arith.maximumf %a, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x64x56x56xf32>
    %padded2 = tensor.pad %bn low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %zero : f32
    } : tensor<1x64x56x56xf32> to tensor<1x64x58x58xf32>
    %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded2, %w2 : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%f0 : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
    %res = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2, %x : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) outs(%e0 : tensor<1x64x56x56xf32>) {
    ^bb0(%in: f32, %in2: f32, %out: f32):
      %a = arith.addf %in, %in2 : f32
      %r = arith.maximumf %a, %zero : f32
      linalg.yield %r : f32
    } -> tensor<1x64x56x56xf32>
    %ep = tensor.empty() : tensor<1x64x1x1xf32>
    %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32>
    %win = tensor.empty() : tensor<56x56xf32>
    %pool = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%res, %win : tensor<1x64x56x56xf32>, tensor<56x56xf32>) outs(%fp : tensor<1x64x1x1xf32>) -> tensor<1x64x1x1xf32>
    %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]] : tensor<1x64x1x1xf32> into tensor<1x64xf32>
    return %flat : tensor<1x64xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w1: "0x04000000",
      w2: "0x04000000"
    }
  }
#-}
