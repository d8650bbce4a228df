//===- Models.h - The architectures the builders know -----------*- C++ -*-===//

#ifndef HYPEROFFLOAD_LIB_WORKLOADS_MODELS_H
#define HYPEROFFLOAD_LIB_WORKLOADS_MODELS_H

#include "hyperoffload/Workloads/Workloads.h"

namespace mlir {
namespace ho {
namespace workloads {

/// A LLaMA-style decoder: GQA attention with RoPE, SwiGLU FFN, RMSNorm.
struct LlamaSpec {
  llvm::StringRef name;
  int64_t hidden, layers, heads, kvHeads, headDim, ffn, vocab;
};

/// DeepSeek-V3: MLA attention, dense FFN in the first layers, then MoE.
struct DeepSeekSpec {
  llvm::StringRef name;
  int64_t hidden, layers, denseLayers, heads;
  int64_t qLoraRank, kvLoraRank, qkNopeDim, qkRopeDim, vHeadDim;
  int64_t denseFfn, expertFfn, routedExperts, expertsPerToken, sharedExperts;
  int64_t vocab;
  /// Native Sparse Attention: compression block and stride, selection
  /// block and count, sliding window (arXiv 2502.11089).
  int64_t nsaCompressBlock, nsaCompressStride, nsaSelectBlock, nsaSelectCount,
      nsaWindow;
};

const LlamaSpec *lookupLlama(llvm::StringRef name);
const DeepSeekSpec *lookupDeepSeek(llvm::StringRef name);

ModelStats getStats(const LlamaSpec &spec, int64_t activationBytes);
ModelStats getStats(const DeepSeekSpec &spec, int64_t activationBytes);

llvm::Expected<OwningOpRef<ModuleOp>>
buildLlama(MLIRContext &context, const LlamaSpec &spec,
           const WorkloadOptions &options);
llvm::Expected<OwningOpRef<ModuleOp>>
buildDeepSeek(MLIRContext &context, const DeepSeekSpec &spec,
              const WorkloadOptions &options);

/// The name of the function a build emits: "llama3_8b_decode".
std::string getFunctionName(llvm::StringRef model, Mode mode);

/// An error about option `option`.
llvm::Error optionError(llvm::StringRef option, const llvm::Twine &message);
/// Checks that `divisor` (the option `option`) divides `value`, the model's
/// `what`.
llvm::Error checkDivides(llvm::StringRef option, int64_t divisor,
                         llvm::StringRef what, int64_t value);

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_WORKLOADS_MODELS_H
