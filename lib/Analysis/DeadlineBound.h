//===- DeadlineBound.h - When the bytes that must move can move -*- C++ -*-===//
//
// The step-time bound with deadlines: the ops run in program order, and the
// whole tensors that must be away from the device at a point of excess
// must leave after their creators and before that point, and come back
// after it and before their next use. docs/CostModel.md ("Deadlines")
// derives it. Shared by the files of the lower bounds; not installed.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_ANALYSIS_DEADLINEBOUND_H
#define HYPEROFFLOAD_LIB_ANALYSIS_DEADLINEBOUND_H

#include "LogicalTensors.h"

namespace mlir {
namespace ho {

/// The least bytes of `candidates` that reach `need` when each is moved
/// whole unless it is divisible: `need` itself when parts suffice, more
/// when whole tensors overshoot it. Exact up to a search limit, and never
/// above the exact least beyond it.
int64_t getLeastCover(ArrayRef<const LogicalTensor *> candidates, int64_t need);

/// The earliest end of a step of a body whose ops, at its points, take
/// `seconds` each (0 at entry and exit), on `target` within `budget`
/// bytes, for each residence of the caller's arguments
/// (LowerBounds::deadlineSeconds and copiedArgumentsDeadlineSeconds); at
/// least the compute.
struct DeadlineBounds {
  double argumentsStayOrFetched = 0;
  double argumentsCopiedToTier = 0;
};
DeadlineBounds computeDeadlineBounds(ArrayRef<LogicalTensor> tensors,
                                     ArrayRef<double> seconds,
                                     const Target &target, int64_t budget);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_ANALYSIS_DEADLINEBOUND_H
