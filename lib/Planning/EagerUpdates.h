//===- EagerUpdates.h - Update the caller's state early ---------*- C++ -*-===//
//
// A framework emits some computations where its program says so rather than
// where their inputs are ready: an optimizer updates every parameter after
// the whole backward pass, although each gradient is final once its layer's
// backward is done. The ops that update an argument in place (parameters,
// optimizer states, gradient accumulators), with the ops that only feed
// them, can run as soon as their inputs exist. That frees their inputs
// early and lets updated state that lives in a tier go back while the rest
// of the step computes. ho-plan-offload plans both orders and keeps the
// faster.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_PLANNING_EAGERUPDATES_H
#define HYPEROFFLOAD_LIB_PLANNING_EAGERUPDATES_H

namespace mlir {
class Block;
namespace ho {
/// Moves every movable op that overwrites an argument's buffer, and every
/// op whose results feed only such ops, to right after the last op it must
/// follow (its producers, the ops whose buffers it conflicts with, and any
/// op that is not movable), keeping the order of everything else. Returns
/// whether any op moved.
bool scheduleUpdatesEagerly(Block &body);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_PLANNING_EAGERUPDATES_H
