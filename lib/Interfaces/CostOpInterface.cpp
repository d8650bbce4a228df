//===- CostOpInterface.cpp - Per-op compute cost --------------------------===//

#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/IR/BuiltinTypes.h"

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
    return vector.getNumElements() * *lane;
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
  return (shaped.getNumElements() * *bits + 7) / 8;
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

std::optional<int64_t> ho::detail::getDefaultBytesAccessed(Operation *op) {
  std::optional<int64_t> read =
      sumOverTensors(op->getOperands(), getTensorSizeInBytes);
  std::optional<int64_t> written =
      sumOverTensors(op->getResults(), getTensorSizeInBytes);
  if (!read || !written)
    return std::nullopt;
  return *read + *written;
}

#include "hyperoffload/Interfaces/CostOpInterface.cpp.inc"
