//===- WorkloadFlags.cpp - Command-line options of a workload -------------===//

#include "WorkloadFlags.h"
#include "OneOf.h"

#include <CLI/CLI.hpp>

using namespace mlir::ho;
using namespace mlir::ho::workloads;
using cli::WorkloadFlags;

/// Accepts an integer of at least `min` (0 or 1). CLI::PositiveNumber checks
/// a double, and CLI11 2.1 prints its range in its error with 300 digits.
static CLI::Validator integerAtLeast(int64_t min) {
  std::string kind = min > 0 ? "positive" : "non-negative";
  auto check = [min, kind](std::string &text) -> std::string {
    int64_t value = 0;
    if (llvm::StringRef(text).getAsInteger(10, value) || value < min)
      return "'" + text + "' is not a " + kind + " integer";
    return "";
  };
  return CLI::Validator(check, min > 0 ? "POSITIVE" : "NONNEGATIVE");
}

/// The spellings of `values`, in the library's words.
template <typename Enum>
static std::vector<std::string> namesOf(std::initializer_list<Enum> values,
                                        llvm::StringRef (*stringify)(Enum)) {
  std::vector<std::string> names;
  for (Enum value : values)
    names.push_back(stringify(value).str());
  return names;
}

static std::vector<std::string> dtypeNames() {
  return namesOf({DType::BF16, DType::F16, DType::F32, DType::FP8},
                 stringifyDType);
}

WorkloadFlags::WorkloadFlags() {
  WorkloadOptions defaults;
  mode = stringifyMode(defaults.mode).str();
  attention = stringifyAttentionKind(defaults.attention).str();
  batch = defaults.batch;
  sequence = defaults.sequence;
  layers = defaults.layers.value_or(0); // Unset: all of the model's.
  tp = defaults.parallelism.tp;
  pp = defaults.parallelism.pp;
  ppStage = defaults.parallelism.ppStage;
  dp = defaults.parallelism.dp;
  ep = defaults.parallelism.ep;
  recomputeAttention = defaults.recomputeAttention;
  remoteKVCache = defaults.remoteKVCache;
}

void WorkloadFlags::onGiven(CLI::Option *option, Setter set) {
  setters.emplace_back(option, std::move(set));
}

void WorkloadFlags::addTo(CLI::App &command) {
  addShapeOptionsTo(command);
  addTypeOptionsTo(command);
  addParallelismOptionsTo(command);
}

void WorkloadFlags::addShapeOptionsTo(CLI::App &command) {
  // The defaults shown are those of a --model; a --scenario has its own.
  const char *group =
      "Workload (defaults: a model's; a --scenario sets its own)";
  CLI::Option *option =
      command.add_option("--mode", mode,
                         "What the graph computes: one decode step, a prefill "
                         "pass or a training step");
  option->check(oneOf(
      namesOf({Mode::Decode, Mode::Prefill, Mode::Train}, stringifyMode)));
  option->capture_default_str()->group(group);
  onGiven(option, [this](WorkloadOptions &o) { o.mode = *parseMode(mode); });

  option = command.add_option("--batch", batch, "Sequences per step");
  option->check(integerAtLeast(1))->capture_default_str()->group(group);
  onGiven(option, [this](WorkloadOptions &o) { o.batch = batch; });

  option = command.add_option(
      "--seq,--context", sequence,
      "Tokens per sequence (prefill, train), or the context length including "
      "the new token (decode)");
  option->check(integerAtLeast(1))->capture_default_str()->group(group);
  onGiven(option, [this](WorkloadOptions &o) { o.sequence = sequence; });

  option = command.add_option(
      "--layers", layers, "Build only this many layers (default: all of them)");
  option->check(integerAtLeast(1))->group(group);
  onGiven(option, [this](WorkloadOptions &o) { o.layers = layers; });

  option = command.add_option(
      "--attention", attention,
      "DeepSeek-V3 attention: full MLA or Native Sparse Attention");
  option->check(oneOf(namesOf({AttentionKind::Full, AttentionKind::NSA},
                              stringifyAttentionKind)));
  option->capture_default_str()->group(group);
  onGiven(option, [this](WorkloadOptions &o) {
    o.attention = *parseAttentionKind(attention);
  });

  option = command.add_flag(
      "--recompute-attention,!--no-recompute-attention", recomputeAttention,
      "Training: recompute attention in the backward pass instead of saving "
      "its inputs and output");
  option->group(group);
  onGiven(option, [this](WorkloadOptions &o) {
    o.recomputeAttention = recomputeAttention;
  });

  option = command.add_flag("--remote-kv,!--no-remote-kv", remoteKVCache,
                            "Decode: pass the KV caches as !ho.remote (in the "
                            "pool) instead of device tensors");
  option->group(group);
  onGiven(option,
          [this](WorkloadOptions &o) { o.remoteKVCache = remoteKVCache; });
}

void WorkloadFlags::addParallelismOptionsTo(CLI::App &command) {
  auto addDegree = [&](const char *name, int64_t &value, int64_t min,
                       int64_t Parallelism::*field, const char *help) {
    CLI::Option *option = command.add_option(name, value, help);
    option->check(integerAtLeast(min))->capture_default_str();
    option->group("Parallelism (the graph is that of one device; a --scenario "
                  "sets its own)");
    onGiven(option, [&value, field](WorkloadOptions &o) {
      o.parallelism.*field = value;
    });
  };
  addDegree("--tp", tp, 1, &Parallelism::tp,
            "Tensor parallel: attention heads and FFN columns are split this "
            "many ways");
  addDegree("--pp", pp, 1, &Parallelism::pp,
            "Pipeline parallel: the layers are split into this many stages");
  addDegree("--pp-stage", ppStage, 0, &Parallelism::ppStage,
            "The pipeline stage to build, from 0 to pp-1");
  addDegree("--dp", dp, 1, &Parallelism::dp,
            "Data parallel: optimizer states and master weights are sharded "
            "this many ways");
  addDegree("--ep", ep, 1, &Parallelism::ep,
            "Expert parallel: the routed experts of each MoE layer are split "
            "this many ways");
}

void WorkloadFlags::addTypeOptionsTo(CLI::App &command) {
  auto addType = [&](const char *name, std::string &value,
                     std::optional<DType> WorkloadOptions::*field,
                     const char *help) {
    CLI::Option *option = command.add_option(name, value, help);
    option->check(oneOf(dtypeNames()));
    option->group("Element types (default: the model's)");
    onGiven(option, [&value, field](WorkloadOptions &o) {
      o.*field = *parseDType(value);
    });
  };
  addType("--weight-type", weightType, &WorkloadOptions::weightType, "Weights");
  addType("--activation-type", activationType, &WorkloadOptions::activationType,
          "Activations and the KV cache");
  addType("--optimizer-type", optimizerType, &WorkloadOptions::optimizerType,
          "Optimizer states and master weights");
}

WorkloadOptions WorkloadFlags::apply(WorkloadOptions base) const {
  for (const auto &[option, set] : setters)
    if (option->count() > 0)
      set(base);
  return base;
}

llvm::Expected<WorkloadOptions>
WorkloadFlags::resolve(llvm::StringRef model, llvm::StringRef scenario) const {
  WorkloadOptions options;
  if (!scenario.empty()) {
    const Scenario *named = lookupScenario(scenario);
    if (!named)
      return llvm::createStringError("unknown scenario '" + scenario +
                                     "'; `hyperoffload model list` shows them");
    options = named->options;
  } else {
    options.model = model.str();
  }
  return apply(std::move(options));
}

const CLI::Option *WorkloadFlags::getFirstGiven() const {
  for (const auto &[option, set] : setters)
    if (option->count() > 0)
      return option;
  return nullptr;
}

std::vector<std::string> cli::getModelNames() {
  std::vector<std::string> names;
  for (const ModelInfo &model : getModels())
    names.push_back(model.name.str());
  return names;
}

std::vector<std::string> cli::getScenarioNames() {
  std::vector<std::string> names;
  for (const Scenario &scenario : getScenarios())
    names.push_back(scenario.name.str());
  return names;
}
