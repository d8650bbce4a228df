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
  /// The search stopped at its limit on placements tried without either.
  GaveUp,
  /// Not searched: more buffers than the search takes.
  TooLarge,
};

/// Bounds on the work of one search.
struct PackingSearchLimits {
  /// Buffers that take room, at most; larger sets are not searched.
  unsigned maxBuffers = 256;
  /// Buffers placed, over all branches, before the search gives up.
  uint64_t maxPlacements = 20'000;
};

struct PackingResult {
  PackingStatus status = PackingStatus::NoPacking;
  /// Indexed like the input; all zero unless packed. Buffers of size 0 or
  /// with an empty interval get offset 0, as in OffsetAssignment.
  llvm::SmallVector<int64_t> offsets;
  /// The highest end offset when packed.
  int64_t arenaSize = 0;
  /// Buffers the search placed, over all the branches it tried.
  uint64_t placements = 0;
};

/// Searches for offsets that keep every buffer below `limit` bytes while no
/// two buffers live at the same time overlap.
///
/// The search builds placements in increasing order of offset. Every
/// placement can be pushed down until each buffer rests on offset 0 or on a
/// buffer live at the same time, and listed by offset; such a list places
/// each buffer at the lowest offset above the buffers before it that are
/// live at the same time. So the search only chooses which buffer comes
/// next, places it there, and lists equal offsets by input index. It
/// abandons a branch when the buffers still to place that are live at one
/// instant cannot all sit between the highest offset so far, or the buffers
/// already there, and the limit. The lifetimes split into stretches that no
/// buffer spans, searched one by one.
PackingResult searchPacking(llvm::ArrayRef<int64_t> sizes,
                            llvm::ArrayRef<LiveInterval> intervals,
                            int64_t limit, PackingSearchLimits limits = {});

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_PLANNING_EXACTPACKING_H
