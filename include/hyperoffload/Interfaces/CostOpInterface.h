//===- CostOpInterface.h - Per-op compute cost ------------------*- C++ -*-===//
//
// The interface through which analyses ask an operation how much work it
// does, plus the size helpers its default implementation is built from.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_INTERFACES_COSTOPINTERFACE_H
#define HYPEROFFLOAD_INTERFACES_COSTOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include <optional>

namespace mlir {
namespace ho {

/// Returns the storage width of one element of `elementType` in bits, or
/// std::nullopt for element types without a fixed width. Index counts as
/// 64 bits; complex numbers as two of their element; fixed-size vectors as
/// all of their lanes.
std::optional<int64_t> getElementBitWidth(Type elementType);

/// The largest tensor measured: 2^59 bytes (512 PiB), so that its size in
/// bits and sums of a function's buffers stay far from int64 overflow.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 59;

/// Returns the number of bytes a statically shaped tensor (or any shaped
/// type) occupies, rounding sub-byte element types up to whole bytes. Returns
/// std::nullopt for other types, dynamic or unranked shapes, element types
/// without a fixed width, and sizes over kMaxTensorBytes.
std::optional<int64_t> getTensorSizeInBytes(Type type);

/// Whether `type` has a static shape and a fixed-width element type but
/// more than kMaxTensorBytes: the one reason getTensorSizeInBytes fails on
/// an otherwise measurable type.
bool isTooLargeToMeasure(Type type);

namespace detail {
/// One operation per element of every tensor result; std::nullopt when a
/// result's size is not static.
std::optional<int64_t> getDefaultFlopCount(Operation *op);

/// Every tensor operand read once, every tensor result written once, and
/// every memref operand the op reads or writes (or may: an op that does not
/// say) touched once; std::nullopt when one of them is not statically sized.
std::optional<int64_t> getDefaultBytesAccessed(Operation *op);

/// Whether `op` keeps the compute stream idle by what it is: a terminator,
/// a constant, a memref view (ViewLikeOpInterface), an op whose only effects
/// allocate or free memory, a function or module (isolated from above), or
/// one that touches no tensor, reads or writes no memref and holds no op
/// that does (index arithmetic, loop bounds, the scalar or vector
/// arithmetic in a kernel's body, which its loads and stores price).
bool isFreeOfDeviceWork(Operation *op);
} // namespace detail

} // namespace ho
} // namespace mlir

#include "hyperoffload/Interfaces/CostOpInterface.h.inc"

#endif // HYPEROFFLOAD_INTERFACES_COSTOPINTERFACE_H
