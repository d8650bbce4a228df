//===- PassTarget.cpp - The hardware model a pass was asked for -----------===//

#include "PassTarget.h"

#include "hyperoffload/Target/MemoryBudget.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::ho;

FailureOr<Target> ho::loadPassTarget(Operation *anchor, llvm::StringRef hw,
                                     llvm::ArrayRef<std::string> overrides) {
  llvm::Expected<Target> target =
      loadTarget(hw.empty() ? getTargetPresetNames().front() : hw);
  if (!target)
    return emitError(anchor->getLoc())
           << "invalid hw option: " << llvm::toString(target.takeError());
  for (const std::string &assignment : overrides) {
    if (llvm::Error error = applyTargetOverride(*target, assignment))
      return emitError(anchor->getLoc())
             << "invalid hw-set option: " << llvm::toString(std::move(error));
  }
  return std::move(*target);
}

FailureOr<int64_t> ho::loadPassBudget(Operation *anchor, llvm::StringRef budget,
                                      const Target &target) {
  llvm::Expected<int64_t> bytes =
      parseMemoryBudget(budget, target.device.hbmCapacity);
  if (!bytes)
    return emitError(anchor->getLoc())
           << "invalid budget option: " << llvm::toString(bytes.takeError());
  return *bytes;
}

FailureOr<PassTargetAndBudget>
ho::loadPassTargetAndBudget(Operation *anchor, llvm::StringRef hw,
                            llvm::ArrayRef<std::string> overrides,
                            llvm::StringRef budget) {
  FailureOr<Target> target = loadPassTarget(anchor, hw, overrides);
  if (failed(target))
    return failure();
  FailureOr<int64_t> bytes = loadPassBudget(anchor, budget, *target);
  if (failed(bytes))
    return failure();
  return PassTargetAndBudget{std::move(*target), *bytes};
}
