//===- Passes.h - HyperOffload passes ---------------------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_TRANSFORMS_PASSES_H
#define HYPEROFFLOAD_TRANSFORMS_PASSES_H

#include "hyperoffload/Planning/OffloadPlan.h"
#include "hyperoffload/Simulation/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace ho {

#define GEN_PASS_DECL
#include "hyperoffload/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hyperoffload/Transforms/Passes.h.inc"

/// The options of a pass that takes a target and a budget (`hw`, `hw-set`,
/// `budget`), set as a driver that runs several such passes gives them.
template <typename PassOptions, typename Overrides>
PassOptions getTargetAndBudgetOptions(llvm::StringRef hw,
                                      const Overrides &hwOverrides,
                                      llvm::StringRef budget) {
  PassOptions options;
  options.hw = hw.str();
  options.hwOverrides.assign(hwOverrides.begin(), hwOverrides.end());
  options.budget = budget.str();
  return options;
}

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_TRANSFORMS_PASSES_H
