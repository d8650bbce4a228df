//===- Workloads.h - Real model graphs for scheduling -----------*- C++ -*-===//
//
// Builders that emit the per-device graph of a real model as a `func.func` of
// `ho.compute` ops with the model's tensor shapes, element types and FLOPs:
// LLaMA3-8B and DeepSeek-V3 (MLA, MoE, optionally NSA), for one decode step,
// a prefill pass or a training step. docs/Workloads.md says what each graph
// contains and how FLOPs and bytes are counted.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_WORKLOADS_WORKLOADS_H
#define HYPEROFFLOAD_WORKLOADS_WORKLOADS_H

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir {
namespace ho {
namespace workloads {

enum class Mode { Decode, Prefill, Train };
enum class AttentionKind { Full, NSA };

/// Element types by name: "bf16", "f16", "f32", "fp8" (f8E4M3FN).
enum class DType { BF16, F16, F32, FP8 };

/// How the model is split over devices; the graph is that of one device.
struct Parallelism {
  /// Tensor parallel: attention heads and FFN columns are split tp ways.
  int64_t tp = 1;
  /// Pipeline parallel: the layers are split into pp stages; the graph holds
  /// stage `ppStage`.
  int64_t pp = 1;
  int64_t ppStage = 0;
  /// Data parallel: optimizer states and master weights are sharded dp ways
  /// (ZeRO-1); gradients are reduce-scattered.
  int64_t dp = 1;
  /// Expert parallel: the routed experts of each MoE layer are split ep ways.
  int64_t ep = 1;
};

struct WorkloadOptions {
  /// A name from getModelNames().
  std::string model = "llama3-8b";
  Mode mode = Mode::Decode;
  int64_t batch = 1;
  /// Prefill and training: tokens per sequence. Decode: the context length,
  /// the tokens in the KV cache including the one being generated.
  int64_t sequence = 4096;
  /// Fewer layers than the model has, for reduced-depth variants.
  std::optional<int64_t> layers;
  /// DeepSeek-V3 only: full MLA attention or Native Sparse Attention.
  AttentionKind attention = AttentionKind::Full;
  /// Weights; activations and the KV cache; optimizer states and master
  /// weights. The model's defaults when unset.
  std::optional<DType> weightType;
  std::optional<DType> activationType;
  std::optional<DType> optimizerType;
  Parallelism parallelism;
  /// Training: recompute attention in the backward pass instead of saving
  /// its inputs and output.
  bool recomputeAttention = false;
  /// Decode: pass the KV caches as `!ho.remote` (pool) instead of device
  /// tensors, for a caller that keeps them in the pool.
  bool remoteKVCache = false;
};

/// What a model is, independent of the graph: for docs and checks.
struct ModelStats {
  /// Parameters of the whole model, and those used for one token.
  int64_t totalParameters = 0;
  int64_t activeParameters = 0;
  /// Parameters of the input embedding table (a lookup, no arithmetic).
  int64_t embeddingParameters = 0;
  /// KV-cache bytes per token of context, all layers.
  int64_t kvCacheBytesPerToken = 0;
};

struct ModelInfo {
  llvm::StringRef name;
  llvm::StringRef description;
};

/// The models the builders know, tiny variants included, and the training
/// steps imported from PyTorch (models/pytorch, docs/PyTorch.md), whose
/// only options are the model and `Mode::Train`.
llvm::ArrayRef<ModelInfo> getModels();

/// Builds the graph `options` describe into a new module. Errors name the
/// option that is wrong (unknown model, a parallel degree that does not
/// divide the dimension it splits, a non-positive size, ...).
llvm::Expected<OwningOpRef<ModuleOp>>
buildWorkload(MLIRContext &context, const WorkloadOptions &options);

/// The whole-model statistics of `options.model` with its element types
/// (parallelism and depth options are ignored).
llvm::Expected<ModelStats> getModelStats(const WorkloadOptions &options);

/// A named configuration used by reports and docs.
struct Scenario {
  llvm::StringRef name;
  llvm::StringRef description;
  WorkloadOptions options;
  /// The device memory it is studied at (docs/Results.md): what `compare`
  /// and `sweep` use when no budget is given.
  llvm::StringRef budget;
};

llvm::ArrayRef<Scenario> getScenarios();
const Scenario *lookupScenario(llvm::StringRef name);

/// Parsing and printing of option values, for command lines.
std::optional<Mode> parseMode(llvm::StringRef name);
std::optional<AttentionKind> parseAttentionKind(llvm::StringRef name);
std::optional<DType> parseDType(llvm::StringRef name);
llvm::StringRef stringifyMode(Mode mode);
llvm::StringRef stringifyAttentionKind(AttentionKind kind);
llvm::StringRef stringifyDType(DType type);

// Arguments and results carry kRoleAttrName (hyperoffload/Dialect/HO/
// HODialect.h): "weight", "input", "kv_cache", "gradient",
// "optimizer_state", "master_weight"; in imported graphs also "buffer" (a
// module buffer such as batch norm's running statistics).

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_WORKLOADS_WORKLOADS_H
