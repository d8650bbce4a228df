//===- CostExternalModels.h - CostOpInterface for upstream ops --*- C++ -*-===//
//
// Cost models of the linalg, tosa, tensor, scf, affine, memref and vector
// ops that front ends and bufferized kernels contain, attached as external
// models of CostOpInterface (docs/CostModel.md has the formulas):
//
// - every linalg structured op (LinalgOp: named ops and linalg.generic):
//   flops = product of the static loop ranges x arithmetic ops in the body
//   (arith and math ops, except constants and casts); bytes = inputs read
//   once, inits read once and written once (on tensors: the result).
// - tosa.matmul ([N, H, C] x [N, C, W] -> [N, H, W]): 2 * N * H * W * C.
// - tosa.conv2d (weight [OC, KH, KW, IC]): 2 * elements(output) * KH*KW*IC.
// - tosa.depthwise_conv2d (weight [KH, KW, C, M]):
//   2 * elements(output) * KH * KW.
// - tosa elementwise ops: one operation per result element (the default);
//   reductions: one per input element; data movement (transpose, reshape,
//   concat, slice, pad, tile, cast, ...): none.
// - tensor.insert_slice: no arithmetic, 2 * bytes(source).
// - loops (scf.for, scf.parallel, scf.forall, affine.for, affine.parallel):
//   the body's counts times the trip count, unknown unless the bounds and
//   steps are constants; scf.if: the larger FLOPs and the larger bytes of
//   its branches. In a body, ops that do no device work count 0; any other
//   op without a model (or with an unknown cost) makes the whole region
//   unknown.
// - memref, affine and vector loads and stores: no arithmetic, the bytes of
//   the scalars or vectors loaded or stored.
// TOSA ops keep the size-based default bytes. Dynamic shapes give
// std::nullopt.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_INTERFACES_COSTEXTERNALMODELS_H
#define HYPEROFFLOAD_INTERFACES_COSTEXTERNALMODELS_H

namespace mlir {
class DialectRegistry;

namespace ho {

/// Attaches the CostOpInterface models of linalg, tosa, tensor, scf,
/// affine, memref and vector ops when those dialects load in a context that
/// uses `registry`.
void registerCostExternalModels(DialectRegistry &registry);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_INTERFACES_COSTEXTERNALMODELS_H
