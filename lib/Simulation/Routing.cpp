//===- Routing.cpp - Mixture-of-experts routing drawn at simulation time --===//

#include "hyperoffload/Simulation/Routing.h"

#include "hyperoffload/Target/JSONInput.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::ho;

//===----------------------------------------------------------------------===//
// Trace files
//===----------------------------------------------------------------------===//

static llvm::Error traceError(llvm::StringRef path, const llvm::Twine &field,
                              const llvm::Twine &message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0}: {1}: {2}", path, field.str(), message.str()));
}

llvm::Expected<std::shared_ptr<const RoutingTrace>>
ho::parseRoutingTrace(llvm::StringRef text, llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> parsed = parseJSONInput(text);
  if (!parsed)
    return traceError(path, "file",
                      "not valid JSON (" + llvm::toString(parsed.takeError()) +
                          ")");
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return traceError(path, "file", "expected an object with \"steps\"");
  const llvm::json::Array *steps = root->getArray("steps");
  if (!steps || steps->empty())
    return traceError(path, "steps",
                      "expected a non-empty array of steps, each an array of "
                      "routed ops, each an array of tokens' expert ids");
  auto trace = std::make_shared<RoutingTrace>();
  trace->path = path.str();
  for (auto [s, step] : llvm::enumerate(*steps)) {
    std::string stepField = llvm::formatv("steps[{0}]", s);
    const llvm::json::Array *layers = step.getAsArray();
    if (!layers || layers->empty())
      return traceError(path, stepField,
                        "expected a non-empty array of routed ops");
    auto &layersOut = trace->steps.emplace_back();
    for (auto [l, layer] : llvm::enumerate(*layers)) {
      std::string layerField = llvm::formatv("{0}[{1}]", stepField, l);
      const llvm::json::Array *tokens = layer.getAsArray();
      if (!tokens || tokens->empty())
        return traceError(path, layerField,
                          "expected a non-empty array of tokens");
      auto &tokensOut = layersOut.emplace_back();
      for (auto [t, token] : llvm::enumerate(*tokens)) {
        std::string tokenField = llvm::formatv("{0}[{1}]", layerField, t);
        const llvm::json::Array *ids = token.getAsArray();
        if (!ids || ids->empty())
          return traceError(path, tokenField,
                            "expected a non-empty array of expert ids");
        auto &idsOut = tokensOut.emplace_back();
        for (auto [i, id] : llvm::enumerate(*ids)) {
          std::optional<int64_t> value = id.getAsInteger();
          if (!value || *value < 0)
            return traceError(path, llvm::formatv("{0}[{1}]", tokenField, i),
                              "expected an expert id, an integer >= 0");
          if (llvm::is_contained(idsOut, *value))
            return traceError(path, llvm::formatv("{0}[{1}]", tokenField, i),
                              llvm::formatv("expert {0} is picked twice by "
                                            "one token",
                                            *value));
          idsOut.push_back(*value);
        }
      }
    }
  }
  return trace;
}

llvm::Expected<std::shared_ptr<const RoutingTrace>>
ho::loadRoutingTrace(llvm::StringRef path) {
  llvm::Expected<std::string> text = readJSONInputFile(path);
  if (!text)
    return traceError(path, "file",
                      "cannot read: " + llvm::toString(text.takeError()));
  return parseRoutingTrace(*text, path);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

RoutingOptions ho::getPlanningRouting(double predictorAccuracy) {
  RoutingOptions routing;
  routing.seed = 0x706c616e6e6572ULL;
  routing.predictorAccuracy = predictorAccuracy;
  return routing;
}

llvm::Error ho::checkPredictorAccuracy(double accuracy) {
  if (std::isfinite(accuracy) && accuracy >= 0 && accuracy <= 1)
    return llvm::Error::success();
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("predictor accuracy must be a fraction in [0, 1], not {0}",
                    accuracy));
}

llvm::Error ho::parseRoutingSpec(llvm::StringRef spec,
                                 RoutingOptions &options) {
  auto [name, argument] = spec.split(':');
  if (name == "uniform" && argument.empty() && !spec.ends_with(":")) {
    options.distribution = RoutingDistribution::Uniform;
    return llvm::Error::success();
  }
  if (name == "zipf") {
    double exponent;
    if (argument.getAsDouble(exponent) || !std::isfinite(exponent) ||
        exponent < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("routing '{0}': the Zipf exponent must be a number "
                        ">= 0, as in zipf:1.2",
                        spec));
    options.distribution = RoutingDistribution::Zipf;
    options.zipfExponent = exponent;
    return llvm::Error::success();
  }
  if (name == "trace" && !argument.empty()) {
    llvm::Expected<std::shared_ptr<const RoutingTrace>> trace =
        loadRoutingTrace(argument);
    if (!trace)
      return trace.takeError();
    options.distribution = RoutingDistribution::Trace;
    options.trace = std::move(*trace);
    return llvm::Error::success();
  }
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("unknown routing '{0}': use uniform, zipf:EXPONENT or "
                    "trace:FILE",
                    spec));
}

std::string ho::describeRouting(const RoutingOptions &options) {
  switch (options.distribution) {
  case RoutingDistribution::Uniform:
    return "uniform";
  case RoutingDistribution::Zipf: {
    std::string text;
    llvm::raw_string_ostream(text)
        << "zipf:" << llvm::format("%g", options.zipfExponent);
    return text;
  }
  case RoutingDistribution::Trace:
    return "trace:" + options.trace->path;
  }
  llvm_unreachable("unknown routing distribution");
}

//===----------------------------------------------------------------------===//
// Draws
//===----------------------------------------------------------------------===//

namespace {
/// SplitMix64: a small generator whose stream depends on the seed alone,
/// the same on every platform.
class Generator {
public:
  explicit Generator(std::initializer_list<uint64_t> keys) {
    for (uint64_t key : keys)
      state = mix(state ^ key);
  }
  uint64_t next() { return mix(state += 0x9e3779b97f4a7c15ULL); }
  /// Uniform in (0, 1).
  double uniform() { return ((next() >> 11) + 0.5) * 0x1.0p-53; }
  int64_t below(int64_t bound) {
    return static_cast<int64_t>(next() % static_cast<uint64_t>(bound));
  }

private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state = 0;
};
} // namespace

/// Zipf weights of `total` experts for one layer: a seeded ranking of the
/// experts, fixed for the run, with weight 1 / rank^exponent.
static std::vector<double> getZipfWeights(const RoutingOptions &options,
                                          unsigned layer, int64_t total) {
  std::vector<int64_t> rank(total);
  std::iota(rank.begin(), rank.end(), 0);
  Generator generator({options.seed, layer, 0x7a697066});
  for (int64_t i = total - 1; i > 0; --i)
    std::swap(rank[i], rank[generator.below(i + 1)]);
  std::vector<double> weights(total);
  for (int64_t expert = 0; expert < total; ++expert)
    weights[expert] =
        std::pow(static_cast<double>(rank[expert] + 1), -options.zipfExponent);
  return weights;
}

llvm::Expected<std::vector<int64_t>>
ho::drawPicks(const RoutingOptions &options, unsigned layer, int64_t tokens,
              int64_t top, int64_t total) {
  std::vector<int64_t> picks;
  picks.reserve(tokens * top);
  if (options.distribution == RoutingDistribution::Trace) {
    const RoutingTrace &trace = *options.trace;
    unsigned s = options.step % trace.steps.size();
    const auto &layers = trace.steps[s];
    auto error = [&](const llvm::Twine &field, const llvm::Twine &message) {
      return traceError(trace.path, field, message);
    };
    if (layer >= layers.size())
      return error(llvm::formatv("steps[{0}]", s),
                   llvm::formatv("has {0} routed ops, but the function has "
                                 "more; give one entry per ho.routed op",
                                 layers.size()));
    const auto &perToken = layers[layer];
    std::string field = llvm::formatv("steps[{0}][{1}]", s, layer);
    if (static_cast<int64_t>(perToken.size()) != tokens)
      return error(field, llvm::formatv("has {0} tokens, but the routed op "
                                        "routes {1}",
                                        perToken.size(), tokens));
    for (auto [t, ids] : llvm::enumerate(perToken)) {
      if (static_cast<int64_t>(ids.size()) != top)
        return error(llvm::formatv("{0}[{1}]", field, t),
                     llvm::formatv("has {0} expert ids, but each token picks "
                                   "{1}",
                                   ids.size(), top));
      for (auto [i, id] : llvm::enumerate(ids))
        if (id >= total)
          return error(llvm::formatv("{0}[{1}][{2}]", field, t, i),
                       llvm::formatv("expert {0} is out of range: the model "
                                     "has {1} experts",
                                     id, total));
      llvm::append_range(picks, ids);
    }
    return picks;
  }

  std::vector<double> weights =
      options.distribution == RoutingDistribution::Zipf
          ? getZipfWeights(options, layer, total)
          : std::vector<double>(total, 1.0);
  Generator generator({options.seed, options.step, layer, 0x7069636b});
  // Weighted sampling without replacement: the `top` largest keys
  // log(u) / weight (Efraimidis and Spirakis).
  std::vector<std::pair<double, int64_t>> keys(total);
  for (int64_t token = 0; token < tokens; ++token) {
    for (int64_t expert = 0; expert < total; ++expert)
      keys[expert] = {std::log(generator.uniform()) / weights[expert], expert};
    std::partial_sort(keys.begin(), keys.begin() + top, keys.end(),
                      [](const auto &a, const auto &b) { return a > b; });
    for (int64_t i = 0; i < top; ++i)
      picks.push_back(keys[i].second);
  }
  return picks;
}

std::vector<int64_t> ho::predictPicks(const RoutingOptions &options,
                                      unsigned layer,
                                      llvm::ArrayRef<int64_t> picks,
                                      int64_t top, int64_t total) {
  Generator generator({options.seed, options.step, layer, 0x70726564});
  std::vector<int64_t> predicted(picks.begin(), picks.end());
  for (size_t first = 0; first < picks.size(); first += top) {
    llvm::ArrayRef<int64_t> token = picks.slice(first, top);
    for (int64_t i = 0; i < top; ++i) {
      if (generator.uniform() < options.predictorAccuracy)
        continue;
      // A wrong guess: an expert neither picked nor predicted already. With
      // none left the guess can only be right.
      llvm::ArrayRef<int64_t> guessed =
          llvm::ArrayRef(predicted).slice(first, top);
      llvm::SmallVector<int64_t> free;
      for (int64_t expert = 0; expert < total; ++expert)
        if (!llvm::is_contained(token, expert) &&
            !llvm::is_contained(guessed, expert))
          free.push_back(expert);
      if (free.empty())
        continue;
      int64_t guess = free[generator.below(free.size())];
      predicted[first + i] = guess;
    }
  }
  return predicted;
}
