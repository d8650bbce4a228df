//===- GapClasses.h - Gap candidates no timing tells apart ------*- C++ -*-===//
//
// Many gap candidates can be alike in everything a policy weighs: the
// experts of a mixture-of-experts layer are all read by one routed kernel
// and all have one size. Timing one member of such a class on a link tells
// how every other member would time there, so a policy that breaks ties in
// favour of the first candidate need only time the first member it has not
// taken.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_GAPCLASSES_H
#define HYPEROFFLOAD_LIB_PLANNING_GAPCLASSES_H

#include "PlanningContext.h"

#include <vector>

namespace mlir {
namespace ho {

/// A partition of gap candidates into classes whose members have the same
/// gap (last use, next use, clean) of buffers of the same size and kind
/// with the same use points, whose data is ready to store at the same
/// point: every timing and count in PlanningContext reads only these.
class GapClasses {
public:
  GapClasses(const PlanningContext &context, ArrayRef<GapCandidate> candidates);

  unsigned getNumClasses() const { return untaken.size(); }
  unsigned getClass(size_t candidate) const { return classOf[candidate]; }
  /// The members of `cls` not taken yet, in increasing order.
  ArrayRef<size_t> getUntaken(unsigned cls) const { return untaken[cls]; }
  bool isExhausted(unsigned cls) const { return untaken[cls].empty(); }
  /// Records that `candidate` is taken.
  void take(size_t candidate);

private:
  std::vector<unsigned> classOf;
  std::vector<SmallVector<size_t, 1>> untaken;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_GAPCLASSES_H
