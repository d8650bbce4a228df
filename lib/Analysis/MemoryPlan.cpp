//===- MemoryPlan.cpp - Offsets of a static memory plan in the IR ---------===//

#include "hyperoffload/Analysis/MemoryPlan.h"

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

std::optional<int64_t> ho::getAssignedOffset(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root)) {
    auto function =
        dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!function || !arg.getOwner()->isEntryBlock())
      return std::nullopt;
    auto offset = function.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                         kArgOffsetAttrName);
    if (!offset)
      return std::nullopt;
    return offset.getInt();
  }
  auto result = cast<OpResult>(root);
  auto offsets =
      result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(kOffsetsAttrName);
  if (!offsets || offsets.size() <= result.getResultNumber() ||
      offsets[result.getResultNumber()] < 0)
    return std::nullopt;
  return offsets[result.getResultNumber()];
}

LogicalResult ho::verifyBuffersInArena(FunctionOpInterface function,
                                       const BufferLiveness &liveness) {
  auto arena = function->getAttrOfType<IntegerAttr>(kArenaSizeAttrName);
  if (!arena)
    return success();
  bool valid = true;
  for (const BufferInfo &buffer : liveness.getBuffers()) {
    std::optional<int64_t> offset = getAssignedOffset(buffer.root);
    if (!offset || *offset + buffer.size <= arena.getInt())
      continue;
    emitError(buffer.root.getLoc())
        << "a buffer of " << buffer.size << " bytes at offset " << *offset
        << " ends past the arena of " << arena.getInt()
        << " bytes (ho.arena_size); assign the offsets again with "
           "ho-assign-offsets";
    valid = false;
  }
  return success(valid);
}
