//===- LowerBounds.h - What no schedule of a function can beat --*- C++ -*-===//
//
// Lower bounds on the device memory and the step time of any schedule of a
// function body on a target within a device-memory budget: the memory that
// one op needs at once, the roofline time of all ops, and the bytes that must
// cross each link for the budget to hold. A simulated schedule is measured
// against them by its gap. docs/CostModel.md ("Lower bounds") derives each
// bound and says why it is sound.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_LOWERBOUNDS_H
#define HYPEROFFLOAD_ANALYSIS_LOWERBOUNDS_H

#include "hyperoffload/Target/Target.h"

#include "mlir/IR/Block.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <optional>

namespace mlir {
namespace ho {

/// The least time one link direction must spend moving bytes.
struct TransferBound {
  /// The tier whose link the bytes must cross; std::nullopt when they may
  /// cross any of the target's links, which then share the load.
  std::optional<MemoryTier> tier;
  /// Tier to device (prefetches) or device to tier (offloads).
  bool toDevice = true;
  int64_t bytes = 0;
  /// One latency plus the bytes over the bandwidth (summed over the links
  /// when `tier` is std::nullopt), plus `trailingComputeSeconds`.
  double seconds = 0;
  /// To the device: the least compute that runs after the last of these
  /// bytes lands, included in `seconds`. That fetch is read by an op, which
  /// then runs with the longest chain of ops that depends on it.
  double trailingComputeSeconds = 0;
};

struct LowerBounds {
  /// The budget the bounds assume, in bytes.
  int64_t budget = 0;

  /// The most device memory one op needs at once: the buffers it reads and
  /// writes (the device results, for the terminator).
  int64_t memoryBytes = 0;
  /// The first op that needs `memoryBytes`; null for an empty body.
  Operation *memoryOp = nullptr;

  /// The sum of every op's roofline time at full HBM bandwidth.
  double computeSeconds = 0;

  /// Bytes that must come (back) to the device, and bytes created on the
  /// device that must leave it, for the live data to fit in the budget.
  /// Both are zero when the budget is below `memoryBytes`.
  int64_t spillBytesToDevice = 0;
  int64_t spillBytesFromDevice = 0;
  /// Bytes of the remote arguments that some op uses, per tier (indexed by
  /// MemoryTier): each must reach the device at least once.
  std::array<int64_t, 3> remoteArgumentBytes = {0, 0, 0};

  /// The link directions with bytes to move, each with its least time.
  SmallVector<TransferBound, 4> transfers;

  /// The deadlines at the points of excess: the tensors away from the
  /// device there must leave after their creators end and before the op
  /// there starts, and come back after it ends and before their next use,
  /// each followed by the compute that depends on it (docs/CostModel.md,
  /// "Deadlines"). Zero where no point has an excess.
  double deadlineSeconds = 0;

  /// Whether some schedule could fit in the budget.
  bool fitsBudget() const { return memoryBytes <= budget; }
  /// The step-time bound: no schedule finishes before its compute is done
  /// or before any link direction has moved what it must.
  double getTimeSeconds() const;
  /// The time bound with the deadlines: what `hyperoffload optimality`
  /// reports next to it. Reports still show the gap to getTimeSeconds.
  double getTighterTimeSeconds() const;
  /// How far `stepTime` is above the time bound, as a fraction
  /// (stepTime / bound - 1); std::nullopt when the bound is zero.
  std::optional<double> getGap(double stepTime) const;
};

/// Computes the lower bounds of `body` (a function body: one block) on
/// `target` within `budget` bytes of device memory (0: the HBM capacity).
LowerBounds computeLowerBounds(Block &body, const Target &target,
                               int64_t budget);

/// Emits an error at the op that needs more memory at once than the budget
/// and fails when no schedule can fit; succeeds otherwise.
LogicalResult checkBudgetFits(const LowerBounds &bounds);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_LOWERBOUNDS_H
