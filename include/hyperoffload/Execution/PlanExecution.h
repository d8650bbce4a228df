//===- PlanExecution.h - A plan run for real, next to its program -*- C++ -*-//
//
// Runs a planned function and the program it was planned from on the same
// inputs (seeded, or given), checks that every result is bit-identical, and
// measures the planned run: step time, time compute blocked in waits, bytes
// moved on each queue, and what integrity checking found.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_EXECUTION_PLANEXECUTION_H
#define HYPEROFFLOAD_EXECUTION_PLANEXECUTION_H

#include "hyperoffload/Execution/JitFunction.h"

#include <map>

namespace mlir {
namespace ho {

/// Inputs for `slots` drawn from `seed`: floating-point elements uniform in
/// [-1, 1), integers in [0, 4) (small, so that an integer input used as an
/// index stays in bounds of any dimension of four or more).
std::vector<std::vector<int8_t>> makeInputs(ArrayRef<ValueSlot> slots,
                                            uint64_t seed);

/// The median of `values` (the upper one of an even count), 0 for none.
double getMedian(std::vector<double> values);

/// The bytes of one argument given by the caller instead of generated: the
/// tensor's elements as the program keeps them in memory (row-major, each
/// element little-endian in its byte width, as numpy's `tofile` writes).
struct GivenInput {
  /// Where they came from, for messages (a file name).
  std::string source;
  std::vector<int8_t> bytes;
};

/// `inputs` for `slots` with the given ones in place of generated ones;
/// an error names the source of a given input that has no argument, one
/// for an argument the program embeds as a constant, or one of the wrong
/// size.
llvm::Error useGivenInputs(ArrayRef<ValueSlot> slots,
                           const std::map<unsigned, GivenInput> &given,
                           std::vector<std::vector<int8_t>> &inputs);

struct ExecutionOptions {
  uint64_t seed = 1;
  /// Arguments whose bytes are given, by argument number; the others are
  /// generated from `seed`.
  std::map<unsigned, GivenInput> givenInputs;
  /// Timed runs of each program; the step time is their median.
  unsigned repetitions = 3;
  /// The planned run's runtime (its arena size comes from the plan).
  ThreadedRuntime::Options runtime;
};

/// One result of the planned run against the same result of the program.
struct ResultComparison {
  int64_t bytes = 0;
  int64_t differingBytes = 0;
  /// The first byte that differs, or -1.
  int64_t firstDifference = -1;
};

struct ExecutionComparison {
  /// By result, over every planned run.
  std::vector<ResultComparison> results;
  /// The unplanned program's results, each as its bytes.
  std::vector<std::vector<int8_t>> programResults;
  /// Median wall-clock seconds of a step.
  double unplannedSeconds = 0;
  double plannedSeconds = 0;
  /// Of the median planned run: seconds compute blocked in waits, and how
  /// many waits blocked.
  double stallSeconds = 0;
  int64_t blockedWaits = 0;
  /// Of the median planned run (of the untimed one when none is timed),
  /// per queue.
  std::map<int32_t, ThreadedRuntime::QueueStats> queues;
  int64_t arenaBytes = 0;
  /// Everything integrity checking reported, over every planned run.
  std::vector<std::string> integrityErrors;

  bool isIdentical() const;
};

/// Runs `unplanned` and `planned` (which must take the same inputs)
/// `options.repetitions` times each, after one untimed run of each, taking
/// turns (program, plan, program, ...).
llvm::Expected<ExecutionComparison>
compareWithUnplanned(const JitFunction &unplanned, const JitFunction &planned,
                     const ExecutionOptions &options);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_EXECUTION_PLANEXECUTION_H
