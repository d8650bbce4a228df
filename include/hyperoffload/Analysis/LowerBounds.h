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

#include "hyperoffload/Target/MemoryBudget.h"
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

/// Where a schedule finds the caller's device arguments.
enum class ArgumentResidence {
  /// Each is on the device from entry to exit (the function cannot free
  /// the caller's buffer), or the caller keeps it in a tier and the step
  /// fetches it: every function run as written, planned or not.
  stayOrFetch,
  /// Each may also be on the device with a current copy in a tier, which
  /// lets it be dropped for free, and nothing is counted for bringing it in
  /// or writing it back: the runtimes (the reactive one's arguments have
  /// copies in a tier; the paged one writes back dirty blocks only).
  copiedToTier,
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

  /// The deadlines at the points of excess, in program order: the whole
  /// tensors away from the device there must leave after their creators
  /// end and before the op there starts, and come back after it ends and
  /// before their next use (docs/CostModel.md, "Deadlines"). For schedules
  /// whose caller passes each device argument on the device for the whole
  /// step or keeps it in a tier (ArgumentResidence::stayOrFetch). At least
  /// the compute; zero when the budget is below the memory bound.
  double deadlineSeconds = 0;
  /// The same where a device argument may also have a current copy in a
  /// tier and be dropped for free (ArgumentResidence::copiedToTier); never
  /// above deadlineSeconds.
  double copiedArgumentsDeadlineSeconds = 0;

  /// Whether some schedule could fit in the budget.
  bool fitsBudget() const { return memoryBytes <= budget; }
  /// The step-time bound: no schedule finishes before its compute is done
  /// or before any link direction has moved what it must.
  double getTimeSeconds() const;
  /// The deadline bound for schedules whose arguments are placed as
  /// `residence` says.
  double getDeadlineSeconds(ArgumentResidence residence) const {
    return residence == ArgumentResidence::stayOrFetch
               ? deadlineSeconds
               : copiedArgumentsDeadlineSeconds;
  }
  /// The step-time bound that reports show: the time bound or, where
  /// higher, the deadlines of schedules whose arguments are placed as
  /// `residence` says.
  double getTighterTimeSeconds(
      ArgumentResidence residence = ArgumentResidence::stayOrFetch) const;
  /// How far `stepTime` is above the tighter bound, as a fraction
  /// (stepTime / bound - 1); std::nullopt when the bound is zero.
  std::optional<double>
  getGap(double stepTime,
         ArgumentResidence residence = ArgumentResidence::stayOrFetch) const;
};

/// Computes the lower bounds of `body` (a function body: one block) on
/// `target` within `budget` bytes of device memory (0: the HBM capacity).
LowerBounds computeLowerBounds(Block &body, const Target &target,
                               int64_t budget);

/// Computes only the memory bound (and the budget) of `body`: what
/// checkBudgetFits needs, without the work of the time bounds.
LowerBounds computeMemoryBound(Block &body, const Target &target,
                               int64_t budget);

/// Emits an error at the op that needs more memory at once than the budget
/// and fails when no schedule can fit; succeeds otherwise.
LogicalResult checkBudgetFits(const LowerBounds &bounds,
                              ByteUnits units = ByteUnits::Decimal);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_LOWERBOUNDS_H
