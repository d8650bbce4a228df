//===- CostOpInterface.cpp - Per-op compute cost --------------------------===//

#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

std::optional<int64_t> ho::getElementBitWidth(Type elementType) {
  if (elementType.isIndex())
    return 64;
  if (elementType.isIntOrFloat())
    return elementType.getIntOrFloatBitWidth();
  if (auto complex = dyn_cast<ComplexType>(elementType)) {
    std::optional<int64_t> part = getElementBitWidth(complex.getElementType());
    if (!part)
      return std::nullopt;
    return 2 * *part;
  }
  if (auto vector = dyn_cast<VectorType>(elementType)) {
    std::optional<int64_t> lane = getElementBitWidth(vector.getElementType());
    if (!lane || vector.isScalable())
      return std::nullopt;
    std::optional<int64_t> bits = *lane;
    for (int64_t extent : vector.getShape())
      if (bits)
        bits = llvm::checkedMul(*bits, extent);
    return bits;
  }
  return std::nullopt;
}

std::optional<int64_t> ho::getTensorSizeInBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> bits = getElementBitWidth(shaped.getElementType());
  if (!bits)
    return std::nullopt;
  // Checked, unlike ShapedType::getNumElements, which wraps: a shape of
  // 2^32 x 2^32 would otherwise measure 0 bytes.
  std::optional<int64_t> totalBits = *bits;
  for (int64_t extent : shaped.getShape())
    if (totalBits)
      totalBits = llvm::checkedMul(*totalBits, extent);
  if (!totalBits || *totalBits > 8 * kMaxTensorBytes)
    return std::nullopt;
  return (*totalBits + 7) / 8;
}

bool ho::isTooLargeToMeasure(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasStaticShape() &&
         getElementBitWidth(shaped.getElementType()) &&
         !getTensorSizeInBytes(type);
}

/// Sums `measure` over every tensor-typed value in `values`; std::nullopt as
/// soon as one of them cannot be measured.
template <typename Range, typename Measure>
static std::optional<int64_t> sumOverTensors(Range &&values,
                                             Measure &&measure) {
  int64_t total = 0;
  for (Value value : values) {
    if (!isa<TensorType>(value.getType()))
      continue;
    std::optional<int64_t> amount = measure(value.getType());
    if (!amount)
      return std::nullopt;
    total += *amount;
  }
  return total;
}

std::optional<int64_t> ho::detail::getDefaultFlopCount(Operation *op) {
  return sumOverTensors(op->getResults(),
                        [](Type type) -> std::optional<int64_t> {
                          auto tensor = cast<TensorType>(type);
                          if (!tensor.hasStaticShape())
                            return std::nullopt;
                          return tensor.getNumElements();
                        });
}

/// Whether `op` reads or writes the memref `value`, or may: an op without
/// MemoryEffectOpInterface says nothing.
static bool mayAccess(Operation *op, Value value) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffectsOnValue(value, instances);
  return llvm::any_of(instances, [](const auto &instance) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect());
  });
}

std::optional<int64_t> ho::detail::getDefaultBytesAccessed(Operation *op) {
  std::optional<int64_t> read =
      sumOverTensors(op->getOperands(), getTensorSizeInBytes);
  std::optional<int64_t> written =
      sumOverTensors(op->getResults(), getTensorSizeInBytes);
  if (!read || !written)
    return std::nullopt;
  int64_t total = *read + *written;
  for (Value operand : op->getOperands()) {
    if (!isa<BaseMemRefType>(operand.getType()) || !mayAccess(op, operand))
      continue;
    std::optional<int64_t> size = getTensorSizeInBytes(operand.getType());
    if (!size)
      return std::nullopt;
    total += *size;
  }
  // An op with regions (a loop without a model) touches what its body
  // uses from outside: each such tensor or memref once.
  llvm::SmallPtrSet<Value, 8> captured;
  auto addCaptured = [&](Operation *nested) {
    for (Value operand : nested->getOperands()) {
      if (!isa<TensorType, BaseMemRefType>(operand.getType()) ||
          op->isAncestor(operand.getParentRegion()->getParentOp()) ||
          !captured.insert(operand).second)
        continue;
      std::optional<int64_t> size = getTensorSizeInBytes(operand.getType());
      if (!size)
        return WalkResult::interrupt();
      total += *size;
    }
    return WalkResult::advance();
  };
  for (Region &region : op->getRegions())
    if (region.walk(addCaptured).wasInterrupted())
      return std::nullopt;
  return total;
}

bool ho::detail::isFreeOfDeviceWork(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>() ||
      op->hasTrait<OpTrait::ConstantLike>() || isa<ViewLikeOpInterface>(op))
    return true;
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    if (!instances.empty() && llvm::all_of(instances, [](const auto &instance) {
          return isa<MemoryEffects::Allocate, MemoryEffects::Free>(
              instance.getEffect());
        }))
      return true;
  }
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  if (llvm::any_of(op->getOperandTypes(), isTensor) ||
      llvm::any_of(op->getResultTypes(), isTensor))
    return false;
  // A region op (a loop over memrefs it captures) works where its body
  // does; a function or a module holds code rather than running it.
  if (op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Operation &nested : block)
        if (!isFreeOfDeviceWork(&nested))
          return false;
  // Memref results alone (a global's buffer) are not work either.
  return llvm::none_of(op->getOperands(), [&](Value operand) {
    return isa<BaseMemRefType>(operand.getType()) && mayAccess(op, operand);
  });
}

#include "hyperoffload/Interfaces/CostOpInterface.cpp.inc"
