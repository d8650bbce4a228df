//===- HOOps.h - HyperOffload dialect operations ----------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HOOPS_H
#define HYPEROFFLOAD_DIALECT_HO_HOOPS_H

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOTypes.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace ho {
/// The device's transfer queues. Transfer ops read and write it so that
/// generic passes keep them in place: their position is the schedule.
struct TransferQueueResource
    : public SideEffects::Resource::Base<TransferQueueResource> {
  StringRef getName() final { return "ho.transfer_queue"; }
};
} // namespace ho
} // namespace mlir

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::ho::TransferQueueResource)

#define GET_OP_CLASSES
#include "hyperoffload/Dialect/HO/HOOps.h.inc"

#endif // HYPEROFFLOAD_DIALECT_HO_HOOPS_H
