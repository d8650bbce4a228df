//===- InPlaceWrites.h - Which results reuse their init's buffer -*- C++
//-*-===//
//
// Tensor IR has value semantics: the init of a destination-style op says
// where its result may be written, not that it is. One tensor.empty, fill or
// constant may be the init of several ops, and an init may still be read
// after the op that names it. One-shot bufferization writes a result into
// its init's buffer only where nothing later still needs the init's value,
// and gives it a buffer of its own otherwise. This analysis makes the same
// decision for one block (a function body), so that the buffers every other
// analysis sees are the ones bufferization will allocate.
//
// The rule. Within one buffer, every in-place write starts a new version;
// a version (a value and its views) lives from its write to the buffer's
// next write. A result is written in place when doing so leaves every read
// of every version of the buffer before that version's end, the read by the
// writer itself excepted where the writer reads its init, or reads an input
// element by element into the same element of the init. Results of
// constants are read-only: a result never goes in place into them.
//
// Decisions are made last op first, as one-shot bufferization's default
// (bottom-up) heuristic makes them, so that its allocation points and ours
// agree on the same IR. ho.compute's tied results, views and awaits are not
// decided: they always share their source's buffer, and ho-verify-schedule
// reports a tied result that breaks the rule.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_INPLACEWRITES_H
#define HYPEROFFLOAD_ANALYSIS_INPLACEWRITES_H

#include "mlir/IR/Block.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace ho {

/// Whether `use`'s owner reads the value it is given. Every operand is
/// read except a destination-style init whose old contents the op ignores:
/// the init of linalg.fill, of a linalg op whose body never reads the init's
/// block argument, of bufferization.materialize_in_destination.
bool readsOperand(OpOperand &use);

/// Returns the operand whose buffer `result` shares whatever the rest of
/// the block does: the future of a `ho.await`, the tied operand of a
/// `ho.compute`. Null otherwise.
Value getFixedAliasSource(OpResult result);

/// The operand whose buffer `result` may share: the source of a view, the
/// init of a destination-style op. It does where `InPlaceWrites` decides
/// so; otherwise the result is a copy (a view) or is written into a buffer
/// of its own (a destination-style op).
Value getReusableSource(OpResult result);

/// Whether a value lives in read-only memory (a constant's result): nothing
/// may be written into its buffer.
bool isReadOnlyValue(Value value);

/// Whether a value's contents are undefined (a tensor.empty's result):
/// reading it reads nothing, so a write into its buffer spoils no read.
bool isUndefinedValue(Value value);

/// The in-place decisions for the destination-style results of one block.
class InPlaceWrites {
public:
  explicit InPlaceWrites(Block &body);

  /// Whether `result`, a view or a destination-style result, shares the
  /// buffer of its reusable source; false for results of other ops.
  bool isInPlace(OpResult result) const { return inPlace.contains(result); }

private:
  llvm::DenseSet<Value> inPlace;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_INPLACEWRITES_H
