//===- ModelBuilder.h - What every model builder shares ---------*- C++ -*-===//

#ifndef HYPEROFFLOAD_LIB_WORKLOADS_MODELBUILDER_H
#define HYPEROFFLOAD_LIB_WORKLOADS_MODELBUILDER_H

#include "GraphBuilder.h"
#include "Layers.h"

namespace mlir {
namespace ho {
namespace workloads {

/// The per-device sizes of one build and the weights it created, passed to
/// the architecture-specific code.
class ModelBuilder {
public:
  ModelBuilder(MLIRContext &context, const WorkloadOptions &options,
               DType defaultWeights, llvm::StringRef functionName);

  GraphBuilder &graph() { return b; }
  Layers &layers() { return layerOps; }
  const WorkloadOptions &getOptions() const { return options; }
  Mode getMode() const { return options.mode; }
  bool isTraining() const { return options.mode == Mode::Train; }

  Type getWeightType() const { return weightType; }
  Type getActivationType() const { return activationType; }
  int64_t getBatch() const { return options.batch; }
  /// Tokens each sequence adds in this step: 1 when decoding.
  int64_t getStepLength() const {
    return options.mode == Mode::Decode ? 1 : options.sequence;
  }
  /// Tokens the step processes: batch times step length.
  int64_t getTokens() const { return getBatch() * getStepLength(); }
  /// Tokens attention looks at: the context when decoding, else the
  /// sequence.
  int64_t getContext() const { return options.sequence; }

  /// A weight argument of the model's weight type (or `type`), remembered
  /// for the optimizer step.
  Value weight(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
               std::optional<Type> type = std::nullopt);

  /// A KV-cache argument, and the updated cache as a result. With the
  /// remote-kv option the caller keeps the cache in the pool: the argument
  /// and result are `!ho.remote`, fetched right before the first use and
  /// stored right after the update (the plan can move both).
  Value kvCache(llvm::StringRef name, RankedTensorType type);
  void kvCacheResult(Value updated);

  /// The first and one-past-last layer of this pipeline stage.
  std::pair<int64_t, int64_t> getStageLayers(int64_t totalLayers) const;
  bool isFirstStage() const { return options.parallelism.ppStage == 0; }
  bool isLastStage() const {
    return options.parallelism.ppStage == options.parallelism.pp - 1;
  }

  /// The start of the step: token ids and their embedding on the first
  /// stage, the previous stage's hidden states on the others.
  Value beginStep(Value embeddingTable, int64_t hidden);
  /// The end of the step: logits (inference) or the loss and the whole
  /// backward pass and optimizer step (training) on the last stage; the
  /// hidden states on the others.
  void endStep(Value hidden, Value finalNorm, Value lmHead);

  OwningOpRef<ModuleOp> finish() { return b.finish(); }

private:
  void emitBackwardAndOptimizer(Value loss, Value seed);
  void emitOptimizerStep(Value weight, Value gradient);

  const WorkloadOptions &options;
  GraphBuilder b;
  Type weightType;
  Type activationType;
  Type optimizerType;
  Layers layerOps;
  Value tokenIds;
  /// The hidden states from the previous stage, on the other stages.
  Value hiddenIn;
  SmallVector<std::pair<Value, std::string>> weights;
};

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_WORKLOADS_MODELBUILDER_H
