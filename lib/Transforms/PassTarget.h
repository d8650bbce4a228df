//===- PassTarget.h - The hardware model a pass was asked for ---*- C++ -*-===//

#ifndef HYPEROFFLOAD_LIB_TRANSFORMS_PASSTARGET_H
#define HYPEROFFLOAD_LIB_TRANSFORMS_PASSTARGET_H

#include "hyperoffload/Target/Target.h"

#include "mlir/IR/Operation.h"

namespace mlir {
namespace ho {

/// Loads the target named by a pass's `hw` option (the default preset when
/// empty) and applies its `hw-set` overrides. Emits the error at the
/// location of `anchor` (not on the op, which would print all of it) and
/// fails when either is invalid.
FailureOr<Target> loadPassTarget(Operation *anchor, llvm::StringRef hw,
                                 llvm::ArrayRef<std::string> overrides);

/// Parses a pass's `budget` option for `target` (its HBM capacity when
/// empty). Emits the error at the location of `anchor` and fails when it is
/// invalid.
FailureOr<int64_t> loadPassBudget(Operation *anchor, llvm::StringRef budget,
                                  const Target &target);

/// A pass's target and budget in bytes, loaded as the two functions above
/// do, for the passes that take both.
struct PassTargetAndBudget {
  Target target;
  int64_t budget;
};
FailureOr<PassTargetAndBudget>
loadPassTargetAndBudget(Operation *anchor, llvm::StringRef hw,
                        llvm::ArrayRef<std::string> overrides,
                        llvm::StringRef budget);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_TRANSFORMS_PASSTARGET_H
