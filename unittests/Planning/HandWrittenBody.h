//===- HandWrittenBody.h - A planning context on hand-written IR -*- C++
//-*-===//
//
// The setup of the Planning tests that work on a function written by hand:
// parse it, and plan its body on the SuperNode preset at a 1 MiB budget.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_UNITTESTS_PLANNING_HANDWRITTENBODY_H
#define HYPEROFFLOAD_UNITTESTS_PLANNING_HANDWRITTENBODY_H

#include "PlanningContext.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <memory>

namespace mlir {
namespace ho {

class HandWrittenBody {
public:
  /// Parses the module `source`, whose first op is the function.
  explicit HandWrittenBody(StringRef source)
      : target(cantFail(getTargetPreset("ascend910c-supernode"))) {
    context.loadDialect<HODialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(source, &context);
    if (module)
      planning = std::make_unique<PlanningContext>(getBody(), target,
                                                   /*budget=*/1 << 20);
  }

  /// Whether `source` parsed.
  bool isValid() const { return planning != nullptr; }
  Block &getBody() {
    return (*module->getOps<func::FuncOp>().begin()).getBody().front();
  }
  PlanningContext &getPlanning() { return *planning; }

private:
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Target target;
  std::unique_ptr<PlanningContext> planning;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_UNITTESTS_PLANNING_HANDWRITTENBODY_H
