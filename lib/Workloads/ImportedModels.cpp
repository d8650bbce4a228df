//===- ImportedModels.cpp - Graphs exported from PyTorch ------------------===//

#include "ImportedModels.h"
#include "Models.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

namespace {
struct EmbeddedFile {
  const char *name;
  const char *text;
};
} // namespace

// kEmbeddedFiles: models/pytorch/*.mlir (cmake/EmbedTextFiles.cmake).
#include "ImportedModelSources.inc"

static const ImportedModel kImported[] = {
    {"resnet50-pytorch", "resnet50-train.mlir",
     "batch 256 x 3x224x224, bf16, Adam"},
    {"vit-b16-pytorch", "vit-b16-train.mlir",
     "batch 128 x 3x224x224, bf16, Adam"},
    {"llama3-8b-decoder-pytorch", "llama3-8b-decoder-train.mlir",
     "8 layers, 1 x 4096 tokens, bf16, Adam"},
};

const ImportedModel *workloads::lookupImported(llvm::StringRef name) {
  const auto *found = llvm::find_if(kImported, [&](const ImportedModel &model) {
    return model.name == name;
  });
  return found == std::end(kImported) ? nullptr : found;
}

/// Every option but the model must be as a default WorkloadOptions has it,
/// and the mode `train`: the graph's shapes and types are the exported ones.
static llvm::Error checkOptions(const ImportedModel &model,
                                const WorkloadOptions &options) {
  WorkloadOptions defaults;
  const Parallelism &par = options.parallelism;
  const Parallelism &none = defaults.parallelism;
  std::pair<llvm::StringRef, bool> changed[] = {
      {"batch", options.batch != defaults.batch},
      {"seq", options.sequence != defaults.sequence},
      {"layers", options.layers.has_value()},
      {"attention", options.attention != defaults.attention},
      {"weight-type", options.weightType.has_value()},
      {"activation-type", options.activationType.has_value()},
      {"optimizer-type", options.optimizerType.has_value()},
      {"tp", par.tp != none.tp},
      {"pp", par.pp != none.pp},
      {"pp-stage", par.ppStage != none.ppStage},
      {"dp", par.dp != none.dp},
      {"ep", par.ep != none.ep},
      {"recompute-attention", options.recomputeAttention},
      {"remote-kv", options.remoteKVCache},
  };
  for (auto [option, isChanged] : changed)
    if (isChanged)
      return optionError(option, "does not apply to '" + model.name +
                                     "', a graph imported from PyTorch with "
                                     "the shapes and types it was exported "
                                     "with (" +
                                     model.exportedAs +
                                     "); export it again to change them "
                                     "(docs/PyTorch.md)");
  if (options.mode != Mode::Train)
    return optionError("mode", "'" + model.name +
                                   "' is a training step imported from "
                                   "PyTorch; its mode is 'train'");
  return llvm::Error::success();
}

static llvm::Expected<OwningOpRef<ModuleOp>>
parseImported(MLIRContext &context, const ImportedModel &model) {
  const auto *file = llvm::find_if(kEmbeddedFiles, [&](const EmbeddedFile &f) {
    return model.file == f.name;
  });
  if (file == std::end(kEmbeddedFiles))
    return llvm::createStringError("models/pytorch/" + model.file +
                                   " was not there when this build embedded "
                                   "models/pytorch; export it with "
                                   "utils/export-pytorch-models.sh");
  context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(file->text, config, model.file);
  if (!module)
    return llvm::createStringError("models/pytorch/" + model.file +
                                   " does not parse; export it again with "
                                   "utils/export-pytorch-models.sh");
  return std::move(module);
}

llvm::Expected<OwningOpRef<ModuleOp>>
workloads::buildImported(MLIRContext &context, const ImportedModel &model,
                         const WorkloadOptions &options) {
  if (llvm::Error error = checkOptions(model, options))
    return std::move(error);
  return parseImported(context, model);
}

llvm::Expected<ModelStats> workloads::getStats(const ImportedModel &model) {
  MLIRContext context;
  llvm::Expected<OwningOpRef<ModuleOp>> module = parseImported(context, model);
  if (!module)
    return module.takeError();
  ModelStats stats;
  for (auto function : (**module).getOps<func::FuncOp>())
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i) {
      auto role = function.getArgAttrOfType<StringAttr>(i, kRoleAttrName);
      auto type = dyn_cast<ShapedType>(function.getArgument(i).getType());
      if (role && role.getValue() == "weight" && type && type.hasStaticShape())
        stats.totalParameters += type.getNumElements();
    }
  stats.activeParameters = stats.totalParameters;
  return stats;
}
