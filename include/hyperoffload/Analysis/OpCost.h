//===- OpCost.h - Roofline execution time of one op -------------*- C++ -*-===//
//
// How long an op keeps the compute stream busy on a target: the larger of its
// arithmetic time and its HBM time, plus the kernel launch overhead.
// Collectives are timed as bytes over the device interconnect.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_ANALYSIS_OPCOST_H
#define HYPEROFFLOAD_ANALYSIS_OPCOST_H

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Target/Target.h"

#include "mlir/IR/Operation.h"

namespace mlir {
namespace ho {

/// Where an op's cost came from.
enum class CostSource {
  /// The op does no device work: transfers, views, constants, terminators.
  None,
  /// FLOPs and bytes from CostOpInterface.
  Interface,
  /// A collective: bytes over the interconnect.
  Collective,
  /// No cost model: the bytes of its tensor operands and results over HBM
  /// bandwidth.
  BytesEstimate,
};

llvm::StringRef stringifyCostSource(CostSource source);

struct OpCost {
  CostSource source = CostSource::None;
  int64_t flops = 0;
  int64_t bytes = 0;
  /// flops over the peak for the op's element type.
  double computeSeconds = 0;
  /// bytes over HBM bandwidth (or over the interconnect for collectives).
  double memorySeconds = 0;
  /// Launch overhead; zero for ops without device work.
  double launchSeconds = 0;

  /// The roofline time at full HBM bandwidth.
  double getSeconds() const {
    return std::max(computeSeconds, memorySeconds) + launchSeconds;
  }
  /// The time when concurrent transfers take `hbmShareLost` (in [0, 1)) of
  /// the HBM bandwidth away from the op.
  double getSecondsUnderContention(double hbmShareLost) const;
};

/// The element type that decides `op`'s peak FLOP/s: that of its first
/// tensor operand, else of its first tensor result, else f32.
Type getComputeElementType(Operation *op);

/// Estimates the cost of `op` on `target`.
OpCost estimateOpCost(Operation *op, const Target &target);

/// Whether `op` is part of an op priced as a whole, such as the payload of
/// a linalg op (its scalar body, a tensor.extract of a gather in it): the
/// enclosing op's cost covers it, and it has none of its own.
bool isPricedWithItsParent(Operation *op);
/// The cost of a routed kernel when `picked` of its experts are picked with
/// `assignments` tokens among them; estimateOpCost gives the expectation
/// under uniform routing.
OpCost estimateRoutedCost(RoutedOp op, const Target &target,
                          int64_t assignments, int64_t picked);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_ANALYSIS_OPCOST_H
