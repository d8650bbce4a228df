//===- ImportedModels.h - Graphs exported from PyTorch ----------*- C++ -*-===//
//
// Models imported from PyTorch by python/hyperoffload_torch and embedded in
// the library from models/pytorch (utils/export-pytorch-models.sh writes
// them). Each is one training step with the shapes and types it was exported
// with, so its only workload options are the model and `train`.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_WORKLOADS_IMPORTEDMODELS_H
#define HYPEROFFLOAD_LIB_WORKLOADS_IMPORTEDMODELS_H

#include "hyperoffload/Workloads/Workloads.h"

namespace mlir {
namespace ho {
namespace workloads {

struct ImportedModel {
  llvm::StringRef name;
  /// The file under models/pytorch.
  llvm::StringRef file;
  /// What was exported, for errors: "batch 256 x 3x224x224, bf16".
  llvm::StringRef exportedAs;
};

const ImportedModel *lookupImported(llvm::StringRef name);

/// Parses the model's graph; fails if `options` asks for anything but the
/// exported training step.
llvm::Expected<OwningOpRef<ModuleOp>>
buildImported(MLIRContext &context, const ImportedModel &model,
              const WorkloadOptions &options);

/// The parameters of the exported graph: the elements of its arguments with
/// the role "weight".
llvm::Expected<ModelStats> getStats(const ImportedModel &model);

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_WORKLOADS_IMPORTEDMODELS_H
