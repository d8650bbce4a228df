//===- LiveProfile.h - Live bytes per point under planning ------*- C++ -*-===//
//
// Planning lowers the live bytes over whole ranges of program points (an
// argument kept in a tier leaves every point of the step) and asks at every
// step for the peak and for how many points of a range exceed the budget.
// A segment tree with lazy addition answers both in O(log n) per call, plus
// O(log n) for each point that crosses the budget.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_LIVEPROFILE_H
#define HYPEROFFLOAD_LIB_PLANNING_LIVEPROFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace ho {

class LiveProfile {
public:
  LiveProfile(llvm::ArrayRef<int64_t> live, int64_t budget);

  unsigned size() const { return numPoints; }
  /// The live bytes at `point`.
  int64_t get(unsigned point) const;
  /// Adds `bytes` (negative to lower) at every point in [first, last).
  void add(unsigned first, unsigned last, int64_t bytes);
  /// The point with the most live bytes (the first, on a tie).
  unsigned getPeakPoint() const;
  /// How many points in [first, last) have more live bytes than the budget.
  int64_t countOverBudget(unsigned first, unsigned last) const;
  /// The first and the last point in [first, last) with more live bytes
  /// than `bytes`, or std::nullopt when there is none.
  std::optional<unsigned> findFirstAbove(unsigned first, unsigned last,
                                         int64_t bytes) const;
  std::optional<unsigned> findLastAbove(unsigned first, unsigned last,
                                        int64_t bytes) const;

private:
  /// A node covers a range of points. Its values include every addition
  /// made to the whole range; `pending` is the part of them its children
  /// have not received yet.
  struct Node {
    int64_t max;
    /// The fewest live bytes of a point over the budget, and the most of a
    /// point within it: whether an addition moves a point across the budget.
    int64_t minOver;
    int64_t maxWithin;
    unsigned numOver;
    int64_t pending;
  };

  void build(unsigned node, unsigned first, unsigned last,
             llvm::ArrayRef<int64_t> live);
  void add(unsigned node, unsigned first, unsigned last, unsigned from,
           unsigned to, int64_t bytes);
  /// Re-sorts the points below `node` that an addition moved across the
  /// budget.
  void reclassify(unsigned node, unsigned first, unsigned last);
  void setLeaf(unsigned node, int64_t bytes);
  void applyToNode(unsigned node, int64_t bytes);
  void pushDown(unsigned node);
  void pull(unsigned node);
  bool hasCrossedBudget(unsigned node) const;
  int64_t countOverBudget(unsigned node, unsigned first, unsigned last,
                          unsigned from, unsigned to) const;
  /// findFirstAbove (`lastFirst` false) or findLastAbove within `node`,
  /// whose values lack `notPushed`.
  std::optional<unsigned> findAbove(bool lastFirst, unsigned node,
                                    unsigned first, unsigned last,
                                    unsigned from, unsigned to, int64_t bytes,
                                    int64_t notPushed) const;

  unsigned numPoints;
  int64_t budget;
  llvm::SmallVector<Node> nodes;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_LIVEPROFILE_H
