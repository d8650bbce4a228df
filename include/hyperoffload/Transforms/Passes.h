//===- Passes.h - HyperOffload passes ---------------------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_TRANSFORMS_PASSES_H
#define HYPEROFFLOAD_TRANSFORMS_PASSES_H

#include "hyperoffload/Analysis/OffloadPlan.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace ho {

#define GEN_PASS_DECL
#include "hyperoffload/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hyperoffload/Transforms/Passes.h.inc"

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_TRANSFORMS_PASSES_H
