//===- PlanExecution.cpp - A plan run for real, next to its program -------===//

#include "hyperoffload/Execution/PlanExecution.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>

using namespace mlir;
using namespace mlir::ho;

/// Writes `value` as an element of `type` at `at`.
static void storeElement(Type type, double value, int8_t *at) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    llvm::APFloat element(value);
    bool losesInfo = false;
    element.convert(floatType.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    llvm::APInt bits = element.bitcastToAPInt();
    std::memcpy(at, bits.getRawData(), (floatType.getWidth() + 7) / 8);
    return;
  }
  auto integer = static_cast<int64_t>(value);
  unsigned width = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  std::memcpy(at, &integer, (width + 7) / 8);
}

std::vector<std::vector<int8_t>> mlir::ho::makeInputs(ArrayRef<ValueSlot> slots,
                                                      uint64_t seed) {
  std::vector<std::vector<int8_t>> inputs;
  for (auto [index, slot] : llvm::enumerate(slots)) {
    if (!slot.constant.empty()) {
      inputs.push_back(slot.constant);
      continue;
    }
    // One generator per argument: an argument's values do not depend on
    // the ones before it.
    std::mt19937_64 generator(seed * 1000003 + index);
    Type element = slot.type.getElementType();
    std::vector<int8_t> bytes(slot.bytes);
    int64_t count = slot.type.getNumElements();
    int64_t elementBytes = slot.bytes / std::max<int64_t>(1, count);
    bool isFloat = isa<FloatType>(element);
    bool isScalar = isFloat || element.isIntOrIndex();
    std::uniform_real_distribution<double> real(-1.0, 1.0);
    std::uniform_int_distribution<int> small(0, 3);
    for (int64_t i = 0; i < count; ++i) {
      int8_t *at = bytes.data() + i * elementBytes;
      if (!isScalar) {
        for (int64_t b = 0; b < elementBytes; ++b)
          at[b] = static_cast<int8_t>(generator());
        continue;
      }
      double value = isFloat ? real(generator) : small(generator);
      if (element.isInteger(1))
        value = static_cast<int>(value) & 1;
      storeElement(element, value, at);
    }
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

llvm::Error
mlir::ho::useGivenInputs(ArrayRef<ValueSlot> slots,
                         const std::map<unsigned, GivenInput> &given,
                         std::vector<std::vector<int8_t>> &inputs) {
  for (const auto &[index, input] : given) {
    std::string where = "input '" + input.source + "'";
    if (index >= slots.size())
      return llvm::createStringError(llvm::formatv(
          "{0}: the function has {1} arguments, so no argument {2}", where,
          slots.size(), index));
    const ValueSlot &slot = slots[index];
    if (!slot.constant.empty())
      return llvm::createStringError(llvm::formatv(
          "{0}: argument {1} is a constant of the program, not an input", where,
          index));
    if (static_cast<int64_t>(input.bytes.size()) != slot.bytes)
      return llvm::createStringError(llvm::formatv(
          "{0}: argument {1} ({2}) takes {3} bytes, the input has {4}", where,
          index, slot.type, slot.bytes, input.bytes.size()));
    inputs[index] = input.bytes;
  }
  return llvm::Error::success();
}

bool ExecutionComparison::isIdentical() const {
  return llvm::all_of(results, [](const ResultComparison &result) {
    return result.differingBytes == 0;
  });
}

/// Adds the differences between `got` and `expected` to `comparison`.
static void compareResults(const std::vector<std::vector<int8_t>> &expected,
                           const std::vector<std::vector<int8_t>> &got,
                           std::vector<ResultComparison> &comparison) {
  comparison.resize(expected.size());
  for (size_t r = 0; r < expected.size(); ++r) {
    ResultComparison &result = comparison[r];
    result.bytes = expected[r].size();
    int64_t differing = 0, first = -1;
    size_t common = std::min(expected[r].size(), got[r].size());
    for (size_t b = 0; b < common; ++b)
      if (expected[r][b] != got[r][b]) {
        if (first < 0)
          first = b;
        ++differing;
      }
    differing += std::max(expected[r].size(), got[r].size()) - common;
    result.differingBytes = std::max(result.differingBytes, differing);
    if (result.firstDifference < 0 ||
        (first >= 0 && first < result.firstDifference))
      result.firstDifference = first;
  }
}

namespace {
using Clock = std::chrono::steady_clock;

struct PlannedRun {
  double seconds = 0;
  ThreadedRuntime::WaitStats waits;
  std::map<int32_t, ThreadedRuntime::QueueStats> queues;
};
} // namespace

double mlir::ho::getMedian(std::vector<double> values) {
  if (values.empty())
    return 0.0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2,
                   values.end());
  return values[values.size() / 2];
}

llvm::Expected<ExecutionComparison>
mlir::ho::compareWithUnplanned(const JitFunction &unplanned,
                               const JitFunction &planned,
                               const ExecutionOptions &options) {
  // The plan takes the program's arguments, then tier copies of some and
  // the constants the program embeds.
  ArrayRef<ValueSlot> plannedArguments = planned.getArguments();
  size_t count = unplanned.getArguments().size();
  bool matches = plannedArguments.size() >= count &&
                 unplanned.getResults().size() == planned.getResults().size();
  for (size_t index = 0; matches && index < plannedArguments.size(); ++index) {
    int64_t copyOf = plannedArguments[index].copyOf;
    bool constant = !plannedArguments[index].constant.empty();
    matches =
        index < count
            ? copyOf < 0
            : constant || (copyOf >= 0 && copyOf < static_cast<int64_t>(count));
  }
  if (!matches)
    return llvm::createStringError(
        "the planned function's signature does not match the program's");
  std::vector<std::vector<int8_t>> inputs =
      makeInputs(unplanned.getArguments(), options.seed);
  if (llvm::Error error =
          useGivenInputs(unplanned.getArguments(), options.givenInputs, inputs))
    return std::move(error);
  std::vector<std::vector<int8_t>> plannedInputs = inputs;
  for (const ValueSlot &slot : plannedArguments.drop_front(count))
    plannedInputs.push_back(slot.copyOf >= 0 ? inputs[slot.copyOf]
                                             : slot.constant);

  ExecutionComparison comparison;
  comparison.arenaBytes = planned.getArenaBytes();
  std::vector<std::vector<int8_t>> expected;
  std::vector<double> unplannedSeconds;
  std::vector<PlannedRun> plannedRuns;
  // The two programs take turns, so that a machine whose speed drifts
  // (a shared host, a clock that changes) slows both alike.
  for (unsigned run = 0; run <= options.repetitions; ++run) {
    Clock::time_point start = Clock::now();
    auto programOutputs = unplanned.run(inputs, /*runtime=*/nullptr);
    double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (!programOutputs)
      return programOutputs.takeError();
    if (run == 0)
      expected = std::move(*programOutputs);
    else
      unplannedSeconds.push_back(seconds);

    ThreadedRuntime::Options runtimeOptions = options.runtime;
    runtimeOptions.arenaBytes = planned.getArenaBytes();
    ThreadedRuntime runtime(runtimeOptions);
    start = Clock::now();
    auto planOutputs = planned.run(plannedInputs, &runtime);
    seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!planOutputs)
      return planOutputs.takeError();
    compareResults(expected, *planOutputs, comparison.results);
    for (std::string &error : runtime.getIntegrityErrors())
      comparison.integrityErrors.push_back(std::move(error));
    if (run > 0)
      plannedRuns.push_back(
          {seconds, runtime.getWaitStats(), runtime.getQueueStats()});
    else
      comparison.queues = runtime.getQueueStats();
  }

  comparison.unplannedSeconds = getMedian(unplannedSeconds);
  comparison.programResults = std::move(expected);
  if (!plannedRuns.empty()) {
    std::sort(plannedRuns.begin(), plannedRuns.end(),
              [](const PlannedRun &a, const PlannedRun &b) {
                return a.seconds < b.seconds;
              });
    const PlannedRun &middle = plannedRuns[plannedRuns.size() / 2];
    comparison.plannedSeconds = middle.seconds;
    comparison.stallSeconds = middle.waits.seconds;
    comparison.blockedWaits = middle.waits.blockedWaits;
    comparison.queues = middle.queues;
  }
  return comparison;
}
