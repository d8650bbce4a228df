//===- PlanningContext.h - What every offload policy plans from -*- C++ -*-===//
//
// The facts a policy decides on: buffers and their uses, a compute timeline
// from the cost model, the memory profile as decisions lower it, and one
// reservation timeline per link direction, so that a transfer's timing
// accounts for the other traffic on its link.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_PLANNINGCONTEXT_H
#define HYPEROFFLOAD_LIB_PLANNING_PLANNINGCONTEXT_H

#include "LiveProfile.h"
#include "hyperoffload/Planning/OffloadPlan.h"

#include <optional>
#include <vector>

namespace mlir {
namespace ho {

/// Busy intervals of one link direction; transfers are placed one after
/// the other in its free time.
class LinkTimeline {
public:
  /// The earliest start at or after `earliest` of a free slot `duration`
  /// long.
  double findEarliest(double earliest, double duration) const;
  /// The latest start of a free slot `duration` long that ends by
  /// `deadline`, or std::nullopt when there is none at or after `notBefore`.
  std::optional<double> findLatest(double deadline, double duration,
                                   double notBefore) const;
  void reserve(double start, double end);
  /// Frees what is busy of [start, end): what an earlier `reserve` took, or
  /// the part of it still there.
  void release(double start, double end);
  double getBusyTime() const { return busyTime; }

private:
  struct Interval {
    double start;
    double end;
  };
  using Iterator = std::vector<Interval>::iterator;
  using ConstIterator = std::vector<Interval>::const_iterator;
  /// The first interval that starts after `time`.
  ConstIterator findStartAfter(double time) const;
  /// The first interval that starts at or after `time`.
  Iterator findStartAtOrAfter(double time);

  /// The last interval at or before `last`, or the first at or after
  /// `first`, whose free time before it is `duration` long or longer by
  /// `fits`, which decides with the same arithmetic as a walk would. All
  /// time before the first interval is free, so a last one always fits.
  template <typename Fits>
  size_t findLastFit(size_t last, double duration, Fits fits) const;
  template <typename Fits>
  std::optional<size_t> findFirstFit(size_t first, double duration,
                                     Fits fits) const;
  /// Builds `widestGap` again after a change to `busy`.
  void indexGaps() const;

  /// Sorted by start, disjoint and not touching. A sorted vector rather
  /// than a tree: the planner searches far more often than it reserves.
  std::vector<Interval> busy;
  double busyTime = 0;
  /// A max segment tree over the free time before each interval (the first
  /// has all time before it): a search skips whole runs of gaps too short
  /// for its copy, which on a busy link are most of them. Built on the
  /// first search after a change.
  mutable std::vector<double> widestGap;
  mutable size_t numLeaves = 0;
  mutable bool gapsChanged = true;
};

/// A gap a policy may offload: a buffer's data is not needed on the device
/// between the op at `lastUse` and the op at `nextUse`.
struct GapCandidate {
  /// `nextUse` of an argument that nothing in the body uses.
  static constexpr unsigned kUnused = 0;

  BufferId buffer;
  /// The point after which the data may leave: a use, or the definition.
  /// Entry (0) for an argument before its first use.
  unsigned lastUse;
  unsigned nextUse;
  /// Whether the tier already holds a current copy, so that no store is
  /// needed: a read-only argument the caller keeps in the tier.
  bool clean;
  /// The value that carries the data across a gap between uses: every use
  /// after the gap reads it or a view of it, so those uses switch to the
  /// fetched copy or to the view remade on it. Null for an argument's
  /// stretch before its first use.
  Value carrier = nullptr;
};

/// The timing of one offloaded gap on one tier.
struct GapWindow {
  MemoryTier tier;
  /// The store is issued right after the op at this point: the last use
  /// before the gap, or earlier while the ops up to it only read the data
  /// (std::nullopt: the last use).
  std::optional<unsigned> storeAfter;
  std::optional<double> storeStart;
  double storeEnd = 0;
  double prefetchStart = 0;
  double prefetchEnd = 0;
  /// The buffer is off the device at points [firstFree, prefetchBefore).
  unsigned firstFree = 0;
  unsigned prefetchBefore = 0;
  /// An argument kept in a tier is off the device again from this point to
  /// exit: after its last use, or once the store of a result that aliases it
  /// has completed. Zero when it does not apply.
  unsigned trailingFree = 0;
  std::optional<double> trailingStoreStart;
  double trailingStoreEnd = 0;
  /// How long the next use waits for the prefetch, on the planning
  /// timeline; zero for a hidden transfer.
  double stall = 0;
  /// When the memory is needed before the store completes: compute waits
  /// for the store this long right before the op at `waitBefore`.
  std::optional<unsigned> waitBefore;
  double storeWait = 0;
  /// A computed result that goes back to the caller in the tier: stored
  /// after its last use and never fetched (`prefetchBefore` is past exit).
  bool returnsRemote = false;

  bool isEmpty() const { return firstFree >= prefetchBefore; }
  /// Whether the buffer is off the device at `point`.
  bool covers(unsigned point) const {
    return (firstFree <= point && point < prefetchBefore) ||
           (trailingFree != 0 && point >= trailingFree);
  }
};

class PlanningContext {
public:
  PlanningContext(Block &body, const Target &target, int64_t budget);

  /// Where an exposed gap waits for its store: before the first op in the
  /// gap over the budget (the default, one wait relieving them all), or
  /// only right before the peak it is timed for.
  void setEarlyStoreWaits(bool early) { earlyStoreWaits = early; }

  const BufferLiveness &getLiveness() const { return liveness; }
  const Target &getTarget() const { return target; }
  int64_t getBudget() const { return budget; }
  Block &getBody() const { return body; }

  /// The compute timeline without stalls: when the op at `point` starts
  /// and ends. Entry is 0 and exit the end of the last op.
  double getStart(unsigned point) const { return starts[point]; }
  double getEnd(unsigned point) const { return ends[point]; }
  double getComputeEnd() const { return starts[liveness.getExitPoint()]; }

  /// Points at which the buffer is read or written, sorted, unique; its
  /// definition first unless it is an argument. The exit point when an
  /// alias is returned.
  ArrayRef<unsigned> getUsePoints(BufferId id) const { return uses[id]; }
  /// The last point before exit at which the buffer is used; the exit
  /// point when only the return uses it. The buffer must have a use.
  unsigned getLastUseInBody(BufferId id) const;
  /// Whether a later in-place write (a tied or destination-style result)
  /// changes the buffer's data.
  bool isWrittenInPlace(BufferId id) const { return writtenInPlace[id]; }
  /// The value of the buffer, defined by `previous`, that carries its data
  /// across to `next`: the one read after the gap, or the one the others
  /// read after it are views of; null when there is none (two values of the
  /// buffer defined before the gap, neither a view of the other, are read
  /// after it).
  Value findCarrier(BufferId id, unsigned previous, unsigned next) const;
  /// The first point after which a store can copy the data the buffer
  /// holds at `lastUse`: the latest definition of one of its values at or
  /// before `lastUse`. Later ops up to `lastUse` only read that data, and a
  /// copy of it can overlap their reads.
  unsigned getStoreReadyPoint(BufferId id, unsigned lastUse) const;
  /// Whether an alias of the buffer is returned.
  bool isReturned(BufferId id) const {
    return !uses[id].empty() && uses[id].back() == liveness.getExitPoint();
  }

  /// Every gap of at least one op between two uses of a buffer that can be
  /// planned, plus the stretch before the first use of every argument.
  std::vector<GapCandidate> enumerateGaps() const;

  /// The time a transfer of `bytes` takes on `tier`'s link in `direction`,
  /// latency included; std::nullopt when the target has no such link.
  std::optional<double> getTransferTime(MemoryTier tier, bool toDevice,
                                        int64_t bytes) const;

  /// Times `gap` on `tier`: the store leaves as soon as the link is free
  /// after the last use, or, where the budget needs the memory in the gap
  /// before that store would end, is issued earlier, as late as still
  /// frees it in time (no earlier than the data is ready,
  /// `getStoreReadyPoint`); the prefetch is placed as late as the link
  /// allows so that it lands before the next use. std::nullopt when the target
  /// cannot reach the tier or the round trip does not fit in the gap.
  ///
  /// With `exposedAt`, a gap whose round trip does not fit (or would not
  /// cover that point) is timed anyway: the prefetch is issued right after
  /// `exposedAt`, as early as keeps the buffer off the device there, and the
  /// next use waits for it (`stall`).
  std::optional<GapWindow>
  timeGap(const GapCandidate &gap, MemoryTier tier,
          std::optional<unsigned> exposedAt = std::nullopt) const;
  /// Whether `gap` ends by handing a computed result to the caller, who can
  /// get it in the tier instead (`GapWindow::returnsRemote`).
  bool endsAtReturn(const GapCandidate &gap) const {
    return gap.nextUse == liveness.getExitPoint() &&
           !liveness.getBuffer(gap.buffer).isArgument();
  }
  /// One past the last point a gap between uses can relieve.
  unsigned getReliefEnd(const GapCandidate &gap) const {
    return endsAtReturn(gap) ? gap.nextUse + 1 : gap.nextUse;
  }
  /// The first point in [first, last) over the budget; `last` when none.
  unsigned getFirstPointOverBudget(unsigned first, unsigned last) const;
  /// The first point in [first, last] from which every point before `last`
  /// is within the budget.
  unsigned getFirstPointWithinBudgetUntil(unsigned first, unsigned last) const;
  /// Makes compute wait for the store of `window` right before `point`, so
  /// that the buffer is off the device there; false when the store cannot
  /// free it there (no store, or `point` outside the gap).
  bool waitForStore(GapWindow &window, const GapCandidate &gap,
                    unsigned point) const;
  /// Times `gap` with the prefetch issued `lead` ops before the next use
  /// and the store right after the last use, ignoring link traffic: how
  /// policies without a cost model place transfers.
  GapWindow placeByDistance(const GapCandidate &gap, MemoryTier tier,
                            unsigned lead) const;
  /// The same with the prefetch issued before the op at `prefetchBefore`
  /// (kept inside the gap).
  GapWindow placeBefore(const GapCandidate &gap, MemoryTier tier,
                        unsigned prefetchBefore) const;

  /// Records `window`: reserves its transfers and lowers the profile.
  void commit(const GapCandidate &gap, const GapWindow &window);
  /// Makes compute wait, right before `point`, for the store of a committed
  /// `window` that would land after it, so that the buffer is off the
  /// device from `point` on too (a wait placed later moves here); false,
  /// changing nothing, when the store cannot free it there (no store, or
  /// `point` not strictly inside the gap before the buffer is freed).
  bool addStoreWait(const GapCandidate &gap, GapWindow &window, unsigned point);
  /// Issues the prefetch of a committed `window` only once the op at
  /// `point` has started, so that the buffer is off the device there too;
  /// its use waits for the rest of the copy. Returns how much longer the
  /// use then waits, or std::nullopt, changing nothing, when the window
  /// brings nothing back or the buffer is not off the device before
  /// `point` or is needed by then. With `apply` false, only says.
  std::optional<double> delayPrefetchPast(const GapCandidate &gap,
                                          GapWindow &window, unsigned point,
                                          bool apply);
  /// Issues a committed prefetch that makes its use wait earlier, while the
  /// memory it then holds sooner fits the budget; returns how many ops
  /// earlier.
  unsigned hoistIntoSlack(const GapCandidate &gap, GapWindow &window);
  /// Issues a committed prefetch before the op at `point` instead, earlier
  /// in its gap, when the memory it then holds sooner fits the budget;
  /// false, changing nothing, otherwise.
  bool issuePrefetchEarlier(const GapCandidate &gap, GapWindow &window,
                            unsigned point);
  /// The live bytes at `point` with the decisions committed so far.
  int64_t getLive(unsigned point) const { return profile.get(point); }
  /// Entry, every op and exit.
  unsigned getNumPoints() const { return profile.size(); }
  /// The point with the most live bytes (the first, on a tie).
  unsigned getPeakPoint() const { return profile.getPeakPoint(); }
  /// How many points in [first, last) have more live bytes than the budget.
  int64_t countOverBudget(unsigned first, unsigned last) const {
    return profile.countOverBudget(first, last);
  }

  /// When the copies of `window` would complete, the store's end plus the
  /// fetch's arrival, if each queued behind the transfers already committed
  /// on its link: how a baseline that may use every link picks one.
  double getQueuedCompletion(const GapWindow &window) const;

  /// The tiers the target reaches, fastest link to the device first.
  ArrayRef<MemoryTier> getTiers() const { return tiers; }
  double getLinkBusyTime(MemoryTier tier) const;

  /// `gap` taken as `window` times it, as a plan says it.
  PlannedGap makePlannedGap(const GapCandidate &gap,
                            const GapWindow &window) const;
  /// Adds the committed decisions to `plan` in the plan's order.
  void
  fillPlan(OffloadPlan &plan,
           llvm::ArrayRef<std::pair<GapCandidate, GapWindow>> decisions) const;

private:
  unsigned getFirstPointStartingAfter(double time) const;
  /// Fills the store of a gap that needs one: when it is issued, when it
  /// runs on `fromDevice`, and the first point it frees.
  void timeStore(const GapCandidate &gap, double storeTime,
                 const LinkTimeline &fromDevice, GapWindow &window) const;
  /// Fills the trailing part of an argument's window.
  void timeTrailingStretch(BufferId id, MemoryTier tier,
                           GapWindow &window) const;
  unsigned getLastPointStartingBy(double time, unsigned notAfter) const;

  Block &body;
  const Target &target;
  int64_t budget;
  BufferLiveness liveness;
  SmallVector<double> starts;
  SmallVector<double> ends;
  bool earlyStoreWaits = true;
  std::vector<SmallVector<unsigned>> uses;
  /// For every value of every buffer (in the order of `aliases`), the point
  /// that defines it and the last point that reads it.
  std::vector<SmallVector<std::pair<unsigned, unsigned>, 1>> aliasSpans;
  SmallVector<bool> writtenInPlace;
  LiveProfile profile;
  SmallVector<MemoryTier> tiers;
  /// [tier][toDevice ? 0 : 1]
  std::array<std::array<LinkTimeline, 2>, 3> links;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_PLANNINGCONTEXT_H
