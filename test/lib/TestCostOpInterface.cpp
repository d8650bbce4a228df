//===- TestCostOpInterface.cpp - Print what CostOpInterface reports -------===//
//
// Emits a remark with the FLOP count and bytes accessed of every op that
// implements CostOpInterface, so that lit tests can check the interface.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Interfaces/CostOpInterface.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestCostOpInterfacePass
    : public PassWrapper<TestCostOpInterfacePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestCostOpInterfacePass)

  StringRef getArgument() const final { return "test-ho-cost-interface"; }
  StringRef getDescription() const final {
    return "Emit a remark with the cost each op reports through "
           "CostOpInterface";
  }

  void runOnOperation() override {
    getOperation().walk([](ho::CostOpInterface op) {
      auto print = [](std::optional<int64_t> value) {
        return value ? std::to_string(*value) : std::string("unknown");
      };
      op->emitRemark() << "flops = " << print(op.getFlopCount())
                       << ", bytes = " << print(op.getBytesAccessed());
    });
  }
};
} // namespace

namespace mlir::ho::test {
void registerTestCostOpInterfacePass() {
  PassRegistration<TestCostOpInterfacePass>();
}
} // namespace mlir::ho::test
