//===- ExactPacking.h - Offsets within a limit, found by search -*- C++ -*-===//
//
// Decides whether buffers of known sizes and lifetimes can be placed in an
// arena of a given size, and finds such a placement: the decision version of
// offline dynamic storage allocation, which is NP-complete (Garey and
// Johnson, problem SR2). The greedy orders of OffsetAssignment miss packings
// that exist; this search, a branch and bound in the manner of MiniMalloc
// (Moffitt, ASPLOS 2023), finds one whenever it exists, or proves that none
// does, within a limit on its work.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_PLANNING_EXACTPACKING_H
#define HYPEROFFLOAD_PLANNING_EXACTPACKING_H

#include "hyperoffload/Planning/LiveInterval.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir {
namespace ho {

/// What a packing search concluded.
enum class PackingStatus {
  /// A placement within the limit was found.
  Packed,
  /// No placement within the limit exists: the search covered every one.
  NoPacking,
  /// The search stopped at its limit on steps without either.
  GaveUp,
  /// Not searched: more buffers than the search takes.
  TooLarge,
};

/// Bounds on the work of one search. The defaults suit the checks a planner
/// runs on every candidate plan: a layout that exists is found in a few
/// hundred steps as a rule, while proving that none does can take far
/// more, and most candidates at a tight budget have none.
struct PackingSearchLimits {
  /// Buffers that take room, at most; larger sets are not searched.
  unsigned maxBuffers = 256;
  /// Steps (a buffer placed, or a floor raised), over all branches, before
  /// the search gives up.
  uint64_t maxSteps = 1'000;

  /// For the layout that is written, searched once per function.
  static PackingSearchLimits forFinalLayout() { return {256, 100'000}; }
};

struct PackingResult {
  PackingStatus status = PackingStatus::NoPacking;
  /// Indexed like the input; all zero unless packed. Buffers of size 0 or
  /// with an empty interval get offset 0, as in OffsetAssignment.
  llvm::SmallVector<int64_t> offsets;
  /// The highest end offset when packed.
  int64_t arenaSize = 0;
  /// The steps the search took, over all the branches it tried.
  uint64_t steps = 0;
};

/// Searches for offsets that keep every buffer below `limit` bytes while no
/// two buffers live at the same time overlap.
///
/// Every layout can be pushed down until each buffer rests on offset 0 or
/// on a buffer live at the same time; the search only builds such layouts,
/// from the bottom up. It keeps, for each instant, a floor below which no
/// buffer still to place lies. At the lowest floor, either one of the
/// buffers live there whose whole lifetime is at that floor sits on it (a
/// branch each), or none of those live there does, and the floor rises to
/// the lowest offset one of them can still take: a higher floor elsewhere
/// in its lifetime, or the floor plus the size of the smallest buffer it
/// could rest on. A branch is abandoned when the buffers still to place
/// that are live at one instant do not fit between the lowest offset any of
/// them can take (the highest floor in its lifetime) and the limit.
/// The lifetimes split into stretches that no buffer spans, searched one by
/// one.
PackingResult searchPacking(llvm::ArrayRef<int64_t> sizes,
                            llvm::ArrayRef<LiveInterval> intervals,
                            int64_t limit, PackingSearchLimits limits = {});

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_EXACTPACKING_H
