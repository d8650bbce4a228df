//===- OpCost.cpp - Roofline execution time of one op ---------------------===//

#include "hyperoffload/Analysis/OpCost.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Dialect/HO/ComputeKinds.h"
#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::ho;

llvm::StringRef ho::stringifyCostSource(CostSource source) {
  switch (source) {
  case CostSource::None:
    return "none";
  case CostSource::Interface:
    return "interface";
  case CostSource::Collective:
    return "collective";
  case CostSource::BytesEstimate:
    return "bytes-estimate";
  }
  llvm_unreachable("unknown cost source");
}

double OpCost::getSecondsUnderContention(double hbmShareLost) const {
  // Collectives move bytes over the interconnect, not through the HBM
  // bandwidth the transfers compete for.
  if (source == CostSource::Collective || hbmShareLost <= 0)
    return getSeconds();
  return std::max(computeSeconds, memorySeconds / (1 - hbmShareLost)) +
         launchSeconds;
}

Type ho::getComputeElementType(Operation *op) {
  for (ValueRange values :
       {ValueRange(op->getOperands()), ValueRange(op->getResults())})
    for (Value value : values)
      if (auto tensor = dyn_cast<TensorType>(value.getType()))
        return tensor.getElementType();
  return Float32Type::get(op->getContext());
}

/// Ops that keep the compute stream idle: transfers run on their own queues,
/// tensor views share their source's buffer, tensor.empty allocates, and the
/// ops detail::isFreeOfDeviceWork names (constants, terminators, memref
/// views, allocations, scalar ops).
static bool doesNoDeviceWork(Operation *op) {
  if (isa<CostOpInterface>(op))
    return false;
  // A gather of picked blocks is fused into the kernel that reads them (NSA
  // loads the selected blocks by index): that kernel's reads are its cost.
  return isa<OffloadOp, PrefetchOp, PrefetchRoutedOp, PrefetchBlocksOp,
             OffloadSliceOp, AwaitOp, WaitOffloadOp, GatherBlocksOp,
             tensor::EmptyOp>(op) ||
         isTensorViewOp(op) || ho::detail::isFreeOfDeviceWork(op);
}

/// Sets the arithmetic and HBM times of `cost`'s FLOPs and bytes.
static void setRoofline(OpCost &cost, Operation *op,
                        const DeviceModel &device) {
  cost.computeSeconds =
      cost.flops / device.getPeakFlops(getComputeElementType(op));
  cost.memorySeconds = cost.bytes / device.hbmBandwidth;
}

OpCost ho::estimateOpCost(Operation *op, const Target &target) {
  OpCost cost;
  if (doesNoDeviceWork(op))
    return cost;
  const DeviceModel &device = target.device;
  cost.launchSeconds = device.launchOverhead;

  if (auto compute = dyn_cast<ComputeOp>(op);
      compute && isCollectiveKind(compute.getKind())) {
    cost.source = CostSource::Collective;
    cost.flops = compute.getFlopCount().value_or(0);
    cost.bytes = compute.getBytesAccessed().value_or(0);
    cost.memorySeconds = cost.bytes / device.collectiveBandwidth;
    cost.computeSeconds =
        cost.flops / device.getPeakFlops(getComputeElementType(op));
    return cost;
  }

  std::optional<int64_t> flops, bytes;
  if (auto model = dyn_cast<CostOpInterface>(op)) {
    flops = model.getFlopCount();
    bytes = model.getBytesAccessed();
  }
  if (flops && bytes) {
    cost.source = CostSource::Interface;
    cost.flops = *flops;
    cost.bytes = *bytes;
  } else {
    cost.source = CostSource::BytesEstimate;
    cost.bytes = detail::getDefaultBytesAccessed(op).value_or(0);
  }
  setRoofline(cost, op, device);
  return cost;
}

bool ho::isPricedWithItsParent(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    // A structured op (destination style, with a cost model) runs its
    // body as its own loop nest.
    if (isa<CostOpInterface>(parent) &&
        isa<DestinationStyleOpInterface>(parent))
      return true;
  return false;
}

OpCost ho::estimateRoutedCost(RoutedOp op, const Target &target,
                              int64_t assignments, int64_t picked) {
  OpCost cost;
  cost.source = CostSource::Interface;
  cost.launchSeconds = target.device.launchOverhead;
  cost.flops = op.getFlopsFor(assignments);
  cost.bytes = op.getBytesFor(picked);
  setRoofline(cost, op, target.device);
  return cost;
}
