//===- ComputeKinds.h - Cost formulas of ho.compute kinds -------*- C++ -*-===//
//
// The FLOP and byte counts of the `ho.compute` kinds that workloads use, from
// the kind and the tensor shapes. `ComputeOp` applies them when it has no
// cost hint. docs/CostModel.md gives the same formulas with examples.
//
// Formulas and the operand shape conventions they assume:
//
// - matmul, batch_matmul: (A [..., M, K], B [..., K, N] or B [K, N]) ->
//   [..., M, N]. flops = 2 * elements(result) * K. A 2-D B is broadcast over
//   the batch dimensions, which otherwise match those of A and the result.
// - attention: (q [B, H, Sq, D], k [B, Hkv, Sk, D], v [B, Hkv, Sk, Dv]) ->
//   [B, H, Sq, Dv], with H a multiple of Hkv (grouped-query attention).
//   flops = B * H * S * (2 * (D + Dv) + 5): the two matmuls plus 5 per score
//   for the softmax, where S is the number of (query, key) pairs computed:
//   Sq * Sk, or with the unit attribute `causal`, the queries being the last
//   Sq of Sk positions (Sq <= Sk), sum over queries i in [0, Sq) of
//   Sk - Sq + i + 1 = Sq * (Sk - Sq) + Sq * (Sq + 1) / 2.
// - elementwise ops, norms, softmax and collectives: a fixed number of
//   operations per result element (see getFlopsPerResultElement).
// - embedding, gather: (table [V, E], indices [...]) -> [..., E]. flops = 0;
//   bytes = 2 * bytes(result) + bytes(indices): the rows gathered are read
//   once and written once, and the rest of the table is not touched.
// - kv_append, cache_update: every result reuses the buffer of an operand
//   (`tied_operands`; conventionally the cache is operand 0). flops = 0;
//   bytes = 2 * bytes of the operands no result is tied to: the new entries
//   are read, then written into the cache, which is otherwise not touched.
//
// Bytes are the interface default (every operand read and every result
// written once) unless stated. A kind whose operands do not follow its
// convention (wrong count or rank, mismatched dimensions, a causal attention
// with Sq > Sk, an untied cache update) and any other kind get the interface
// defaults: the formulas are not stretched to shapes they were not written
// for. A count is std::nullopt when a shape it reads is dynamic, and when it
// overflows int64_t.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_DIALECT_HO_COMPUTEKINDS_H
#define HYPEROFFLOAD_DIALECT_HO_COMPUTEKINDS_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace mlir {
namespace ho {
class ComputeOp;

/// Returns the FLOP count of `op` from its kind and shapes, ignoring any cost
/// hint, as described at the top of this file.
std::optional<int64_t> getComputeKindFlopCount(ComputeOp op);

/// Returns the bytes `op` reads and writes from its kind and shapes, ignoring
/// any cost hint, as described at the top of this file.
std::optional<int64_t> getComputeKindBytesAccessed(ComputeOp op);

/// Returns the operations per result element of the elementwise, norm,
/// softmax and collective kinds, std::nullopt for other kinds. Counting
/// each add, multiply, divide, max, exp or tanh as one:
///   1  add, sub, mul, div, max, min, neg, scale, residual (an add),
///      relu (max(x, 0)), exp, tanh;
///   4  sigmoid 1 / (1 + exp(-x)), silu x / (1 + exp(-x));
///   5  swiglu silu(gate) * up;
///   9  gelu, tanh form 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)));
///   3  rope x * cos + rotate(x) * sin;
///   0  copy, cast;
///   4  rmsnorm: square, sum, scale by 1/rms, scale by the weight;
///   7  layernorm: sum, subtract the mean, square, sum, scale by 1/stddev,
///      scale by gamma, add beta;
///   5  softmax: max, subtract, exp, sum, divide;
///   1  allreduce, reduce_scatter (the reduction); 0 allgather, all_to_all.
/// Per-row work (a mean, a reciprocal square root) is left out.
std::optional<int64_t> getFlopsPerResultElement(llvm::StringRef kind);

/// Returns true when `op` is a matmul that could run as one matmul per
/// column block of its right operand and a "concat" of their results, with
/// the same result: (A, B) -> C with a 2-D B, a static result, no cost hint
/// (it would have to be split too) and no tied result, and a result that
/// some op other than the return reads (a result only returned is left as
/// computed).
bool isColumnSplittableMatmul(ComputeOp op);

/// Returns true for the kinds that communicate between devices (allreduce,
/// allgather, reduce_scatter, all_to_all). Their time is their bytes over the
/// interconnect rather than a roofline of device compute and memory.
bool isCollectiveKind(llvm::StringRef kind);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_DIALECT_HO_COMPUTEKINDS_H
