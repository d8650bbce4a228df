//===- Routing.cpp - Mixture-of-experts routing drawn at simulation time --===//

#include "hyperoffload/Simulation/Routing.h"

#include "hyperoffload/Target/JSONInput.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <tuple>

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

namespace {
/// What a trace records: experts a router picked, or blocks a selection
/// picked; the words its errors use for each.
struct SelectionWords {
  const char *field; // the trace's key
  const char *op;
  const char *row;
  const char *rowsVerb; // "the routed op routes 3 (tokens)"
  const char *item;
  const char *anItem;
  const char *owner; // "the model has 256 experts"
};
} // namespace

static constexpr SelectionWords kExpertWords = {
    "steps",  "ho.routed op", "token",    "routes",
    "expert", "an expert",    "the model"};
static constexpr SelectionWords kBlockWords = {
    "blocks",  "ho.gather_blocks op", "row", "has", "block",
    "a block", "its source"};

/// Reads a trace's `[step][op][row] = ids` array into `out`.
static llvm::Error parseSelections(const llvm::json::Array &steps,
                                   llvm::StringRef path,
                                   const SelectionWords &words,
                                   RoutingTrace::Selections &out) {
  for (auto [s, step] : llvm::enumerate(steps)) {
    std::string stepField = llvm::formatv("{0}[{1}]", words.field, s);
    const llvm::json::Array *ops = step.getAsArray();
    if (!ops || ops->empty())
      return traceError(
          path, stepField,
          llvm::formatv("expected a non-empty array of {0}s", words.op));
    auto &opsOut = out.emplace_back();
    for (auto [l, op] : llvm::enumerate(*ops)) {
      std::string opField = llvm::formatv("{0}[{1}]", stepField, l);
      const llvm::json::Array *rows = op.getAsArray();
      if (!rows || rows->empty())
        return traceError(
            path, opField,
            llvm::formatv("expected a non-empty array of {0}s", words.row));
      auto &rowsOut = opsOut.emplace_back();
      for (auto [t, row] : llvm::enumerate(*rows)) {
        std::string rowField = llvm::formatv("{0}[{1}]", opField, t);
        const llvm::json::Array *ids = row.getAsArray();
        if (!ids || ids->empty())
          return traceError(path, rowField,
                            llvm::formatv("expected a non-empty array of {0} "
                                          "ids",
                                          words.item));
        auto &idsOut = rowsOut.emplace_back();
        for (auto [i, id] : llvm::enumerate(*ids)) {
          std::string idField = llvm::formatv("{0}[{1}]", rowField, i);
          std::optional<int64_t> value = id.getAsInteger();
          if (!value || *value < 0)
            return traceError(path, idField,
                              llvm::formatv("expected {0} id, an integer >= 0",
                                            words.anItem));
          if (llvm::is_contained(idsOut, *value))
            return traceError(path, idField,
                              llvm::formatv("{0} {1} is picked twice by one "
                                            "{2}",
                                            words.item, *value, words.row));
          idsOut.push_back(*value);
        }
      }
    }
  }
  return llvm::Error::success();
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
    return traceError(path, "file",
                      "expected an object with \"steps\" (experts), "
                      "\"blocks\" (KV blocks) or both");
  auto trace = std::make_shared<RoutingTrace>();
  trace->path = path.str();
  bool any = false;
  for (auto [words, out] : {std::make_pair(&kExpertWords, &trace->steps),
                            std::make_pair(&kBlockWords, &trace->blocks)}) {
    const llvm::json::Value *field = root->get(words->field);
    if (!field)
      continue;
    const llvm::json::Array *steps = field->getAsArray();
    if (!steps || steps->empty())
      return traceError(path, words->field,
                        llvm::formatv("expected a non-empty array of steps, "
                                      "each an array of {0}s, each an array "
                                      "of {1}s' {2} ids",
                                      words->op, words->row, words->item));
    if (llvm::Error error = parseSelections(*steps, path, *words, *out))
      return std::move(error);
    any = true;
  }
  if (!any)
    return traceError(path, "steps",
                      "expected \"steps\" (the experts each routed op's "
                      "tokens pick), \"blocks\" (the KV blocks each "
                      "ho.gather_blocks op's rows pick) or both");
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

namespace mlir {
namespace ho {
class DrawnPicks {
public:
  /// What a draw depends on.
  using Key = std::tuple<RoutingDistribution, double, uint64_t, unsigned,
                         unsigned, int64_t, int64_t, int64_t>;

  std::optional<std::vector<int64_t>> lookup(const Key &key) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = picks.find(key);
    if (found == picks.end())
      return std::nullopt;
    return found->second;
  }
  void insert(const Key &key, const std::vector<int64_t> &drawn) {
    std::lock_guard<std::mutex> lock(mutex);
    picks.try_emplace(key, drawn);
  }

private:
  mutable std::mutex mutex;
  std::map<Key, std::vector<int64_t>> picks;
};
} // namespace ho
} // namespace mlir

RoutingOptions ho::getPlanningRouting(double predictorAccuracy) {
  RoutingOptions routing;
  routing.seed = 0x706c616e6e6572ULL;
  routing.predictorAccuracy = predictorAccuracy;
  routing.drawn = std::make_shared<DrawnPicks>();
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

/// The picks of the `index`-th selection of its kind in the trace, in
/// step `options.step`; an error where the trace's shape differs from
/// the op's.
static llvm::Expected<std::vector<int64_t>>
readTracePicks(const RoutingOptions &options, const SelectionWords &words,
               const RoutingTrace::Selections &steps, unsigned index,
               int64_t rows, int64_t perRow, int64_t total) {
  const RoutingTrace &trace = *options.trace;
  auto error = [&](const llvm::Twine &field, const llvm::Twine &message) {
    return traceError(trace.path, field, message);
  };
  if (steps.empty())
    return error(words.field,
                 llvm::formatv("is missing, but the function has a {0}; "
                               "give its picks per step",
                               words.op));
  unsigned s = options.step % steps.size();
  const auto &ops = steps[s];
  if (index >= ops.size())
    return error(llvm::formatv("{0}[{1}]", words.field, s),
                 llvm::formatv("has {0} {1}s, but the function has more; "
                               "give one entry per {1}",
                               ops.size(), words.op));
  const auto &perRowIds = ops[index];
  std::string field = llvm::formatv("{0}[{1}][{2}]", words.field, s, index);
  if (static_cast<int64_t>(perRowIds.size()) != rows)
    return error(field, llvm::formatv("has {0} {1}s, but the {2} {3} {4}",
                                      perRowIds.size(), words.row, words.op,
                                      words.rowsVerb, rows));
  std::vector<int64_t> picks;
  picks.reserve(rows * perRow);
  for (auto [t, ids] : llvm::enumerate(perRowIds)) {
    if (static_cast<int64_t>(ids.size()) != perRow)
      return error(llvm::formatv("{0}[{1}]", field, t),
                   llvm::formatv("has {0} {1} ids, but each {2} picks {3}",
                                 ids.size(), words.item, words.row, perRow));
    for (auto [i, id] : llvm::enumerate(ids))
      if (id >= total)
        return error(llvm::formatv("{0}[{1}][{2}]", field, t, i),
                     llvm::formatv("{0} {1} is out of range: {2} has {3} "
                                   "{0}s",
                                   words.item, id, words.owner, total));
    llvm::append_range(picks, ids);
  }
  return picks;
}

/// `rows * perRow` picks, `perRow` distinct ones in [0, total) per row,
/// drawn from the options' distribution for the selection `layer` seeds.
static std::vector<int64_t> drawAfresh(const RoutingOptions &options,
                                       unsigned layer, int64_t rows,
                                       int64_t perRow, int64_t total) {
  std::vector<double> weights =
      options.distribution == RoutingDistribution::Zipf
          ? getZipfWeights(options, layer, total)
          : std::vector<double>(total, 1.0);
  Generator generator({options.seed, options.step, layer, 0x7069636b});
  // Weighted sampling without replacement: the `perRow` largest keys
  // log(u) / weight (Efraimidis and Spirakis).
  std::vector<int64_t> picks;
  picks.reserve(rows * perRow);
  std::vector<std::pair<double, int64_t>> keys(total);
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t id = 0; id < total; ++id)
      keys[id] = {std::log(generator.uniform()) / weights[id], id};
    std::partial_sort(keys.begin(), keys.begin() + perRow, keys.end(),
                      [](const auto &a, const auto &b) { return a > b; });
    for (int64_t i = 0; i < perRow; ++i)
      picks.push_back(keys[i].second);
  }
  return picks;
}

/// The draw of drawAfresh, reused from `options.drawn` where it was made
/// before.
static std::vector<int64_t> drawFromDistribution(const RoutingOptions &options,
                                                 unsigned layer, int64_t rows,
                                                 int64_t perRow,
                                                 int64_t total) {
  if (!options.drawn)
    return drawAfresh(options, layer, rows, perRow, total);
  DrawnPicks::Key key{options.distribution,
                      options.zipfExponent,
                      options.seed,
                      options.step,
                      layer,
                      rows,
                      perRow,
                      total};
  if (std::optional<std::vector<int64_t>> drawn = options.drawn->lookup(key))
    return std::move(*drawn);
  std::vector<int64_t> drawn = drawAfresh(options, layer, rows, perRow, total);
  options.drawn->insert(key, drawn);
  return drawn;
}

llvm::Expected<std::vector<int64_t>>
ho::drawPicks(const RoutingOptions &options, unsigned layer, int64_t tokens,
              int64_t top, int64_t total) {
  if (options.distribution == RoutingDistribution::Trace)
    return readTracePicks(options, kExpertWords, options.trace->steps, layer,
                          tokens, top, total);
  return drawFromDistribution(options, layer, tokens, top, total);
}

/// Keeps the draws of block selections apart from those of routed ops,
/// which count layers from 0.
static constexpr unsigned kFirstBlockLayer = 1u << 16;

unsigned ho::getBlockSelectionLayer(unsigned gather) {
  return kFirstBlockLayer + gather;
}

llvm::Expected<std::vector<int64_t>>
ho::drawBlockPicks(const RoutingOptions &options, unsigned gather, int64_t rows,
                   int64_t perRow, int64_t blocks) {
  if (options.distribution != RoutingDistribution::Trace)
    return drawFromDistribution(options, getBlockSelectionLayer(gather), rows,
                                perRow, blocks);
  // A trace of experts alone leaves the blocks to the seeded uniform draw.
  if (options.trace->blocks.empty()) {
    RoutingOptions uniform = options;
    uniform.distribution = RoutingDistribution::Uniform;
    return drawFromDistribution(uniform, getBlockSelectionLayer(gather), rows,
                                perRow, blocks);
  }
  return readTracePicks(options, kBlockWords, options.trace->blocks, gather,
                        rows, perRow, blocks);
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
      llvm::BitVector taken(total);
      for (int64_t expert : llvm::concat<const int64_t>(token, guessed))
        taken.set(expert);
      llvm::SmallVector<int64_t> free;
      for (int64_t expert = 0; expert < total; ++expert)
        if (!taken.test(expert))
          free.push_back(expert);
      if (free.empty())
        continue;
      int64_t guess = free[generator.below(free.size())];
      predicted[first + i] = guess;
    }
  }
  return predicted;
}
