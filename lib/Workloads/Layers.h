//===- Layers.h - Building blocks shared by the model builders --*- C++ -*-===//
//
// Each block emits its forward ops and, when the builder records a tape, the
// rule that emits its backward ops. FLOPs of backward ops are given as hints
// where the kind formulas do not apply (docs/Workloads.md).
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_WORKLOADS_LAYERS_H
#define HYPEROFFLOAD_LIB_WORKLOADS_LAYERS_H

#include "GraphBuilder.h"

namespace mlir {
namespace ho {
namespace workloads {

class Layers {
public:
  Layers(GraphBuilder &b, Type activationType, int64_t tp,
         bool recomputeAttention)
      : b(b), act(activationType), tp(tp),
        recomputeAttention(recomputeAttention) {}

  Type getActivationType() const { return act; }
  RankedTensorType activation(llvm::ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, act);
  }

  /// x [T, K] times w [K, N]: [T, N]. With tensor parallelism, the input
  /// of a column-parallel linear is replicated, so its gradient is summed
  /// over the devices: `columnParallel` adds that all-reduce.
  Value linear(Value x, Value w, llvm::StringRef name,
               bool columnParallel = false);
  /// Normalises the rows of x [T, H] and scales them by w [H].
  Value rmsnorm(Value x, Value w, llvm::StringRef name);
  /// An op whose cost follows its result's elements (`kind` has a formula in
  /// ComputeKinds), with several results; backward: one `<kind>_grad` op
  /// that takes the output gradients and the inputs, at twice the FLOPs.
  SmallVector<Value> pointwiseN(llvm::StringRef kind, ValueRange inputs,
                                TypeRange resultTypes, llvm::StringRef name,
                                std::optional<int64_t> flops = std::nullopt);
  Value pointwise(llvm::StringRef kind, ValueRange inputs, Type resultType,
                  llvm::StringRef name,
                  std::optional<int64_t> flops = std::nullopt) {
    return pointwiseN(kind, inputs, TypeRange{resultType}, name, flops).front();
  }
  /// Tokens x [T, H] through the experts that `picks` [T', top] (global
  /// ids, known at run time) chooses among `experts` (global ids
  /// `firstExpert`... of `totalExperts`): a `ho.routed` kernel, [T, H].
  /// Backward reads the same picked experts and writes every expert's
  /// gradient (zero for those nobody picked).
  Value routedExperts(Value x, Value picks, ValueRange experts,
                      int64_t firstExpert, int64_t totalExperts,
                      llvm::StringRef name);
  /// A residual add: the gradient flows to both inputs unchanged.
  Value residual(Value x, Value y, llvm::StringRef name);
  /// Attention of q [B, H, Sq, D] over k [B, Hkv, Sk, D] and v [B, Hkv, Sk,
  /// Dv]. `flops`/`bytes` override the kind formula for sparse variants.
  Value attention(llvm::StringRef kind, Value q, Value k, Value v, bool causal,
                  llvm::StringRef name,
                  std::optional<int64_t> flops = std::nullopt,
                  std::optional<int64_t> bytes = std::nullopt);
  /// Rows of table [V, H] picked by ids [T]: [T, H].
  Value embedding(Value table, Value ids, llvm::StringRef name);
  /// The mean cross-entropy of logits [T, V] against labels [T]: [1] f32.
  Value crossEntropy(Value logits, Value labels);

  /// Tensor parallelism: sums the partial results of a row-parallel linear
  /// over the tp devices; the gradient passes back unchanged.
  Value reduceTensorParallel(Value x, llvm::StringRef name);

private:
  GraphBuilder &b;
  Type act;
  int64_t tp;
  bool recomputeAttention;
};

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_WORKLOADS_LAYERS_H
