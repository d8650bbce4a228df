//===- LogicalTensors.h - The tensors the bounds reason about ---*- C++ -*-===//
//
// The lower bounds (LowerBounds.h) see a body as logical tensors: each is
// one piece of data, wherever it is held during the step, with the points
// at which it must be on the device. docs/CostModel.md ("Which schedules
// are bounded") defines them; this header is shared by the files of the
// bounds and is not installed.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_ANALYSIS_LOGICALTENSORS_H
#define HYPEROFFLOAD_LIB_ANALYSIS_LOGICALTENSORS_H

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <limits>
#include <optional>

namespace mlir {
namespace ho {

/// One tensor of the computation, whatever holds it during the step: its
/// device buffer, its copies in a tier and the buffers it is prefetched
/// back into.
struct LogicalTensor {
  /// Bytes of the tensor itself, not rounded to the allocation granularity.
  int64_t bytes = 0;
  /// Written on the device during the step (an op result), as opposed to
  /// passed in by the caller, who may keep it in a tier.
  bool created = false;
  /// Whether a plan may move part of it alone: read in part (a routed
  /// expert, gathered blocks), written in slices into a tier, or a weight
  /// that ho-plan-offload may fetch in column blocks. Any other tensor is
  /// on the device or away from it as a whole.
  bool divisible = false;
  /// Set for a remote function argument: it starts in this tier.
  std::optional<MemoryTier> remoteArgumentTier;
  /// A device function argument: the caller holds it from entry, on the
  /// device or in a tier.
  bool deviceArgument = false;
  /// The points at which it must be on the device, sorted and unique: its
  /// definition (when created) and its uses by ops.
  SmallVector<unsigned, 4> presence;
  /// The last point at which an op writes it in place (a KV cache appended
  /// to, a parameter updated): a copy in a tier made before is stale.
  std::optional<unsigned> lastWrite;
  /// The last point its data exists: its last presence, or exit for a
  /// created tensor that the function returns (which may wait for the
  /// return in a tier).
  unsigned end = 0;

  /// From when its data exists until `end`. A remote argument's data counts
  /// from its first presence: the fetch before that one is counted apart
  /// (LowerBounds::remoteArgumentBytes).
  unsigned getStart() const { return deviceArgument ? 0 : presence.front(); }
  bool isLiveAt(unsigned point) const {
    return !presence.empty() && getStart() <= point && point <= end;
  }
  bool isPresentAt(unsigned point) const {
    return llvm::binary_search(presence, point);
  }
  /// The first presence after `point`; std::nullopt when it is needed no
  /// more.
  std::optional<unsigned> getNextPresence(unsigned point) const {
    auto next = llvm::upper_bound(presence, point);
    if (next == presence.end())
      return std::nullopt;
    return *next;
  }
};

/// The logical tensors of a body, and which one each device buffer holds.
struct LogicalTensors {
  static constexpr unsigned kNone = std::numeric_limits<unsigned>::max();

  SmallVector<LogicalTensor> tensors;
  /// Indexed by BufferId; kNone for a buffer that holds none.
  SmallVector<unsigned> tensorOfBuffer;
};

/// Groups the device buffers and remote values of `body` into logical
/// tensors: an offload of a whole buffer and the prefetches of that copy
/// hold the same tensor as the buffer.
LogicalTensors buildLogicalTensors(Block &body, const BufferLiveness &liveness);

/// Ops that need their operands and results on the device. Transfers and
/// views are how a schedule moves or renames data, not uses of it; the
/// return hands results over, and a plan may hand them over in a tier.
bool needsDataOnDevice(Operation *op);

/// Whether `use` needs no more than part of its tensor on the device, which
/// a plan can move alone: an expert of a routed op (read only if its router
/// picks it, which may never happen), the source of a ho.gather_blocks (its
/// picked blocks), or the destination of a tensor.insert_slice into a
/// tensor read in blocks (the written slice can be stored alone).
bool isReadInPart(OpOperand &use);

/// Whether ho-plan-offload may compute `op` in column blocks of a weight
/// argument (lib/Planning/ColumnBlocks.h): then only its last block, as
/// small as the split makes it, need follow the last fetch.
bool mayRunInColumnBlocks(Operation *op);

/// Bytes per point of the tensors live there, wherever they are.
struct DemandProfile {
  /// Bytes of all live tensors.
  SmallVector<int64_t> live;
  /// Bytes of live tensors that were not created on the device and are not
  /// needed at the point: the caller's data that may sit in a tier there.
  SmallVector<int64_t> callerDataAway;
  /// Bytes of live tensors needed at no point from there on: results that
  /// may wait for the return in a tier, and need no fetch.
  SmallVector<int64_t> neededNoMore;
};

DemandProfile computeDemandProfile(ArrayRef<LogicalTensor> tensors,
                                   unsigned numPoints);

/// A point under memory pressure: `excess` bytes of live data cannot be on
/// the device there.
struct PressurePoint {
  unsigned point;
  int64_t excess;
};

/// The point of highest excess in every maximal run of points with a
/// positive one, in program order. At most `limit` of them, the highest:
/// any subset still gives a sound bound.
SmallVector<PressurePoint> findPressurePoints(ArrayRef<int64_t> excess,
                                              size_t limit);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_ANALYSIS_LOGICALTENSORS_H
