//===- BlockOps.cpp - Selected blocks of a tensor, and slices stored
//-------===//
//
// ho.gather_blocks, ho.prefetch_blocks and ho.offload_slice: reading the
// blocks of a long tensor (a KV cache) that a run-time selection picks,
// and writing a slice of one that lives in a tier.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ho;

/// The device side of `type`: a ranked tensor, or the tensor of a remote one.
static RankedTensorType getDeviceSide(Type type) {
  if (auto remote = dyn_cast<RemoteType>(type))
    return dyn_cast<RankedTensorType>(remote.getTensorType());
  return dyn_cast<RankedTensorType>(type);
}

/// The type of the picked blocks of `source` that `selection` gives:
/// `source` with `k * blockSize` along `axis`.
static RankedTensorType getGatheredType(RankedTensorType source, int64_t axis,
                                        int64_t blockSize, int64_t k) {
  SmallVector<int64_t> shape(source.getShape());
  shape[axis] = k * blockSize;
  return RankedTensorType::get(shape, source.getElementType());
}

/// Checks what ho.gather_blocks and ho.prefetch_blocks share: a statically
/// shaped source cut into blocks along `axis`, an integer selection of
/// `[rows..., k]` with k at most the blocks per row, and `result` the
/// gathered type. `axis` and `blockSize` are signed: I64Attr getters are not.
static LogicalResult verifyBlockSelection(Operation *op, Type sourceType,
                                          Type selectionType, int64_t axis,
                                          int64_t blockSize,
                                          RankedTensorType result) {
  RankedTensorType source = getDeviceSide(sourceType);
  if (!source || !source.hasStaticShape())
    return op->emitOpError() << "source must be a statically shaped tensor "
                                "or remote tensor, but is "
                             << sourceType;
  if (axis < 0 || axis >= source.getRank())
    return op->emitOpError() << "axis = " << axis << " is out of range for "
                             << source << " (rank " << source.getRank() << ")";
  if (blockSize < 1)
    return op->emitOpError()
           << "block_size = " << blockSize << " must be positive";
  auto selection = cast<RankedTensorType>(selectionType);
  ArrayRef<int64_t> rows = source.getShape().take_front(axis);
  if (!selection.getElementType().isInteger() || !selection.hasStaticShape() ||
      selection.getRank() != axis + 1 ||
      selection.getShape().drop_back() != rows)
    return op->emitOpError()
           << "selection must be an integer tensor of block indices, "
              "[rows..., k] with the rows of the source before axis "
           << axis << ", but is " << selection;
  int64_t blocks = llvm::divideCeil(source.getDimSize(axis), blockSize);
  int64_t k = selection.getShape().back();
  if (k < 1 || k > blocks)
    return op->emitOpError() << "picks " << k << " blocks per row of " << blocks
                             << "; pick 1 to " << blocks;
  RankedTensorType expected = getGatheredType(source, axis, blockSize, k);
  if (result != expected)
    return op->emitOpError()
           << "yields " << result << ", but " << k << " blocks of " << blockSize
           << " along axis " << axis << " of " << source << " are " << expected;
  return success();
}

//===----------------------------------------------------------------------===//
// ho.gather_blocks
//===----------------------------------------------------------------------===//

int64_t GatherBlocksOp::getNumBlocks() {
  return llvm::divideCeil(
      getDeviceSide(getSource().getType()).getDimSize(getAxis()),
      getBlockSize());
}

int64_t GatherBlocksOp::getNumRows() {
  auto selection = cast<RankedTensorType>(getSelection().getType());
  return selection.getNumElements() / selection.getShape().back();
}

int64_t GatherBlocksOp::getBlocksPerRow() {
  return cast<RankedTensorType>(getSelection().getType()).getShape().back();
}

int64_t GatherBlocksOp::getBlockBytes() {
  auto result = cast<RankedTensorType>(getResult().getType());
  return *getTensorSizeInBytes(result) / (getNumRows() * getBlocksPerRow());
}

LogicalResult GatherBlocksOp::verify() {
  auto result = cast<RankedTensorType>(getResult().getType());
  if (failed(verifyBlockSelection(
          *this, getSource().getType(), getSelection().getType(),
          getAxisAttr().getInt(), getBlockSizeAttr().getInt(), result)))
    return failure();
  bool remote = isa<RemoteType>(getSource().getType());
  if (!remote && getStaged())
    return emitOpError() << "has staged blocks but a device source to read "
                            "them from; drop them";
  if (remote && !getStaged())
    return emitOpError() << "reads a remote source but has no staged blocks: "
                            "pass the awaited result of a ho.prefetch_blocks "
                            "of it";
  if (remote && getStaged().getType() != result)
    return emitOpError() << "staged blocks have type " << getStaged().getType()
                         << ", but the result is " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// ho.prefetch_blocks
//===----------------------------------------------------------------------===//

LogicalResult PrefetchBlocksOp::verify() {
  return verifyBlockSelection(
      *this, getSource().getType(), getSelection().getType(),
      getAxisAttr().getInt(), getBlockSizeAttr().getInt(),
      dyn_cast<RankedTensorType>(getResult().getType().getTensorType()));
}

//===----------------------------------------------------------------------===//
// ho.offload_slice
//===----------------------------------------------------------------------===//

LogicalResult OffloadSliceOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  RankedTensorType dest = getDeviceSide(getDest().getType());
  if (!dest || !dest.hasStaticShape() || !source.hasStaticShape())
    return emitOpError() << "needs statically shaped tensors, but stores "
                         << source << " into " << getDest().getType();
  if (source.getElementType() != dest.getElementType() ||
      source.getRank() != dest.getRank())
    return emitOpError() << "stores " << source << " into " << dest
                         << ": they need the same element type and rank";
  ArrayRef<int64_t> offsets = getOffsets();
  if (static_cast<int64_t>(offsets.size()) != dest.getRank())
    return emitOpError() << "has " << offsets.size() << " offsets for a rank-"
                         << dest.getRank() << " destination";
  for (auto [dim, offset] : llvm::enumerate(offsets))
    if (offset < 0 || offset > dest.getDimSize(dim) - source.getDimSize(dim))
      return emitOpError() << "offset " << offset << " in dimension " << dim
                           << " puts " << source.getDimSize(dim)
                           << " elements outside " << dest.getDimSize(dim);
  return success();
}
