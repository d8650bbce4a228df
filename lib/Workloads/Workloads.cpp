//===- Workloads.cpp - Model registry, options and scenarios --------------===//

#include "hyperoffload/Workloads/Workloads.h"

#include "ImportedModels.h"
#include "Models.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Support/DidYouMean.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

static const ModelInfo kModels[] = {
    {"llama3-8b", "LLaMA3-8B: 32 layers, hidden 4096, GQA 32/8 heads, SwiGLU "
                  "14336, vocabulary 128256 (8.03B parameters)"},
    {"llama3-tiny", "a 2-layer LLaMA with hidden 256, for tests"},
    {"deepseek-v3",
     "DeepSeek-V3: 61 layers, hidden 7168, MLA, 3 dense + 58 MoE layers with "
     "256 routed experts (top 8) and 1 shared (671B parameters, 37B active)"},
    {"deepseek-v3-tiny", "a 3-layer DeepSeek-V3 with hidden 256 and 8 "
                         "experts, for tests"},
    {"resnet50-pytorch",
     "torchvision's ResNet-50 imported from PyTorch: a training step of batch "
     "256 at 224x224 in bf16 with Adam (25.6M parameters)"},
    {"vit-b16-pytorch",
     "torchvision's ViT-B/16 imported from PyTorch: a training step of batch "
     "128 at 224x224 in bf16 with Adam (86.6M parameters)"},
    {"llama3-8b-decoder-pytorch",
     "8 LLaMA3-8B decoder layers written in plain PyTorch and imported: a "
     "training step of 4096 tokens in bf16 with Adam, eager attention (1.74B "
     "parameters)"},
};

llvm::ArrayRef<ModelInfo> workloads::getModels() { return kModels; }

std::optional<Mode> workloads::parseMode(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Mode>>(name)
      .Case("decode", Mode::Decode)
      .Case("prefill", Mode::Prefill)
      .Case("train", Mode::Train)
      .Default(std::nullopt);
}

std::optional<AttentionKind>
workloads::parseAttentionKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<AttentionKind>>(name)
      .Case("full", AttentionKind::Full)
      .Case("nsa", AttentionKind::NSA)
      .Default(std::nullopt);
}

std::optional<DType> workloads::parseDType(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("bf16", DType::BF16)
      .Case("f16", DType::F16)
      .Case("f32", DType::F32)
      .Case("fp8", DType::FP8)
      .Default(std::nullopt);
}

llvm::StringRef workloads::stringifyMode(Mode mode) {
  switch (mode) {
  case Mode::Decode:
    return "decode";
  case Mode::Prefill:
    return "prefill";
  case Mode::Train:
    return "train";
  }
  llvm_unreachable("unknown mode");
}

llvm::StringRef workloads::stringifyAttentionKind(AttentionKind kind) {
  return kind == AttentionKind::Full ? "full" : "nsa";
}

llvm::StringRef workloads::stringifyDType(DType type) {
  switch (type) {
  case DType::BF16:
    return "bf16";
  case DType::F16:
    return "f16";
  case DType::F32:
    return "f32";
  case DType::FP8:
    return "fp8";
  }
  llvm_unreachable("unknown element type");
}

static int64_t getByteWidth(DType type) {
  switch (type) {
  case DType::FP8:
    return 1;
  case DType::BF16:
  case DType::F16:
    return 2;
  case DType::F32:
    return 4;
  }
  llvm_unreachable("unknown element type");
}

std::string workloads::getFunctionName(llvm::StringRef model, Mode mode) {
  std::string name = (model + "_" + stringifyMode(mode)).str();
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

llvm::Error workloads::optionError(llvm::StringRef option,
                                   const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "option '" + option + "': " + message);
}

llvm::Error workloads::checkDivides(llvm::StringRef option, int64_t divisor,
                                    llvm::StringRef what, int64_t value) {
  if (value % divisor == 0)
    return llvm::Error::success();
  return optionError(option, llvm::Twine(divisor) + " does not divide the " +
                                 what + " (" + llvm::Twine(value) + ")");
}

static llvm::Error unknownModel(llvm::StringRef name) {
  SmallVector<llvm::StringRef> known;
  for (const ModelInfo &model : kModels)
    known.push_back(model.name);
  return optionError("model",
                     "unknown model '" + name + "'; known models are: " +
                         llvm::join(known, ", ") + suggestName(name, known));
}

/// Checks what does not depend on the model.
static llvm::Error validate(const WorkloadOptions &options) {
  auto positive = [](llvm::StringRef option, int64_t value) -> llvm::Error {
    if (value > 0)
      return llvm::Error::success();
    return optionError(option, "must be positive, got " + llvm::Twine(value));
  };
  const Parallelism &par = options.parallelism;
  for (auto [option, value] :
       {std::pair<llvm::StringRef, int64_t>{"batch", options.batch},
        {"seq", options.sequence},
        {"tp", par.tp},
        {"pp", par.pp},
        {"dp", par.dp},
        {"ep", par.ep}})
    if (llvm::Error error = positive(option, value))
      return error;
  if (options.layers)
    if (llvm::Error error = positive("layers", *options.layers))
      return error;
  if (par.ppStage < 0 || par.ppStage >= par.pp)
    return optionError("pp-stage", "must be in [0, " + llvm::Twine(par.pp) +
                                       "), got " + llvm::Twine(par.ppStage));
  if (options.remoteKVCache && options.mode != Mode::Decode)
    return optionError("remote-kv", "applies to decode only");
  return llvm::Error::success();
}

/// Refuses a step of more tokens than its tensors' sizes can hold: 16 Mi
/// tokens, far past any context served, keeps every tensor (a full attention
/// matrix is seq^2 x heads) within 2^59 bytes. The message says what the step
/// would need, computed in floating point since it may not fit int64.
static llvm::Error checkTokensPerStep(const WorkloadOptions &options) {
  constexpr int64_t kMaxTokens = int64_t(1) << 24;
  if (options.sequence <= kMaxTokens &&
      options.batch <= kMaxTokens / options.sequence)
    return llvm::Error::success();
  double tokens = double(options.batch) * double(options.sequence);
  std::string need;
  if (llvm::Expected<ModelStats> stats = getModelStats(options))
    need = llvm::formatv("; its KV cache alone would need {0:e2} bytes",
                         tokens * double(stats->kvCacheBytesPerToken));
  else
    llvm::consumeError(stats.takeError());
  return optionError(
      "seq",
      llvm::formatv("a step holds at most 2^24 ({0}) tokens, got batch "
                    "x seq = {1} x {2} = {3:e2}{4}",
                    kMaxTokens, options.batch, options.sequence, tokens, need));
}

llvm::Expected<OwningOpRef<ModuleOp>>
workloads::buildWorkload(MLIRContext &context, const WorkloadOptions &options) {
  if (const ImportedModel *model = lookupImported(options.model))
    return buildImported(context, *model, options);
  if (llvm::Error error = validate(options))
    return std::move(error);
  if (llvm::Error error = checkTokensPerStep(options))
    return std::move(error);
  context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  if (const LlamaSpec *spec = lookupLlama(options.model)) {
    if (options.attention == AttentionKind::NSA)
      return optionError("attention", "NSA is available for DeepSeek-V3 only");
    if (options.layers && *options.layers > spec->layers)
      return optionError("layers", llvm::Twine(options.model) + " has " +
                                       llvm::Twine(spec->layers) + " layers");
    return buildLlama(context, *spec, options);
  }
  if (const DeepSeekSpec *spec = lookupDeepSeek(options.model)) {
    if (options.layers && *options.layers > spec->layers)
      return optionError("layers", llvm::Twine(options.model) + " has " +
                                       llvm::Twine(spec->layers) + " layers");
    return buildDeepSeek(context, *spec, options);
  }
  return unknownModel(options.model);
}

llvm::Expected<ModelStats>
workloads::getModelStats(const WorkloadOptions &options) {
  if (const ImportedModel *model = lookupImported(options.model))
    return getStats(*model);
  int64_t activationBytes =
      getByteWidth(options.activationType.value_or(DType::BF16));
  if (const LlamaSpec *spec = lookupLlama(options.model))
    return getStats(*spec, activationBytes);
  if (const DeepSeekSpec *spec = lookupDeepSeek(options.model))
    return getStats(*spec, activationBytes);
  return unknownModel(options.model);
}

static std::vector<Scenario> makeScenarios() {
  std::vector<Scenario> scenarios;

  WorkloadOptions deepseek;
  deepseek.model = "deepseek-v3";
  deepseek.mode = Mode::Decode;
  deepseek.attention = AttentionKind::NSA;
  deepseek.batch = 3;
  deepseek.sequence = 71680;
  deepseek.parallelism.ep = 16;
  deepseek.parallelism.tp = 8;
  scenarios.push_back(
      {"deepseek-v3-nsa-decode",
       "DeepSeek-V3 + NSA, one decode step of 3 sequences at a 70k-token "
       "context on one device of an EP-16 x TP-8 deployment: about 62 GB "
       "without offload, 16 GB (26%) of it KV cache, as in the paper's "
       "Table 3",
       deepseek, "44GB"});

  WorkloadOptions train;
  train.model = "llama3-8b";
  train.mode = Mode::Train;
  train.batch = 2;
  train.sequence = 4096;
  train.parallelism.dp = 8;
  scenarios.push_back(
      {"llama3-8b-train",
       "LLaMA3-8B training step, batch 2 x 4096 tokens on one device of a "
       "DP-8 run with sharded optimizer states (the paper's training setting)",
       train, "64GB"});

  WorkloadOptions longDecode;
  longDecode.model = "llama3-8b";
  longDecode.mode = Mode::Decode;
  longDecode.batch = 1;
  longDecode.sequence = 131072;
  scenarios.push_back({"llama3-8b-decode-128k",
                       "LLaMA3-8B, one decode step at a 128k-token context "
                       "(16 GiB of KV cache next to 16 GB of weights)",
                       longDecode, "24GB"});

  // Imported from PyTorch (docs/PyTorch.md), at about half the memory a step
  // needs without offload, so that one must be planned.
  auto imported = [&](llvm::StringRef name, llvm::StringRef model,
                      llvm::StringRef description, llvm::StringRef budget) {
    WorkloadOptions options;
    options.model = model.str();
    options.mode = Mode::Train;
    scenarios.push_back({name, description, options, budget});
  };
  imported("resnet50-pytorch-train", "resnet50-pytorch",
           "torchvision's ResNet-50 training step from PyTorch, batch 256 at "
           "224x224 in bf16 with Adam: 11.5 GB without offload, 11.1 GB of it "
           "activations saved for backward",
           "6GB");
  imported("vit-b16-pytorch-train", "vit-b16-pytorch",
           "torchvision's ViT-B/16 training step from PyTorch, batch 128 at "
           "224x224 in bf16 with Adam: 9.6 GB without offload, 9.0 GB of it "
           "activations saved for backward",
           "5GB");
  imported("llama3-8b-decoder-pytorch-train", "llama3-8b-decoder-pytorch",
           "8 LLaMA3-8B decoder layers in plain PyTorch, one training step of "
           "4096 tokens in bf16 with Adam and eager attention: 47.1 GB "
           "without offload, 33.7 GB of it activations saved for backward",
           "24GB");
  return scenarios;
}

llvm::ArrayRef<Scenario> workloads::getScenarios() {
  static const std::vector<Scenario> scenarios = makeScenarios();
  return scenarios;
}

const Scenario *workloads::lookupScenario(llvm::StringRef name) {
  for (const Scenario &scenario : getScenarios())
    if (scenario.name == name)
      return &scenario;
  return nullptr;
}
