//===- TestBufferLiveness.cpp - Print buffer liveness for FileCheck -------===//
//
// Prints every device buffer of each function body (its root, size, live
// interval and aliases), the memory profile and its peak.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Analysis/BufferLiveness.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestBufferLivenessPass
    : public PassWrapper<TestBufferLivenessPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestBufferLivenessPass)

  TestBufferLivenessPass() = default;
  TestBufferLivenessPass(const TestBufferLivenessPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-ho-buffer-liveness"; }
  StringRef getDescription() const final {
    return "Print the device buffers of every function body with their live "
           "intervals, aliases and the memory profile";
  }
  Option<int64_t> granularity{*this, "granularity",
                              llvm::cl::desc("Allocation granularity in bytes"),
                              llvm::cl::init(1)};

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    AsmState state(getOperation());
    auto print = [&](Value value) { value.printAsOperand(os, state); };
    for (auto function : getOperation().getOps<FunctionOpInterface>()) {
      if (function.isExternal())
        continue;
      ho::BufferLiveness liveness(function.getFunctionBody().front(),
                                  granularity);
      os << "@" << function.getName() << ": exit point "
         << liveness.getExitPoint() << ", peak " << liveness.getPeakBytes()
         << " bytes at point " << liveness.getPeakPoint() << "\n";
      for (const ho::BufferInfo &buffer : liveness.getBuffers()) {
        os << "  buffer " << buffer.id << ": ";
        print(buffer.root);
        os << ", " << buffer.size << " bytes, live [" << buffer.definition
           << ", " << buffer.lastUse << "]";
        if (buffer.aliases.size() > 1) {
          os << ", aliases";
          for (Value alias : llvm::drop_begin(buffer.aliases)) {
            os << " ";
            print(alias);
          }
        }
        os << "\n";
      }
      for (Value value : liveness.getUnsizedValues()) {
        os << "  unsized: ";
        print(value);
        os << "\n";
      }
      os << "  profile:";
      for (int64_t bytes : liveness.getProfile())
        os << " " << bytes;
      os << "\n";
    }
  }
};
} // namespace

namespace mlir::ho::test {
void registerTestBufferLivenessPass() {
  PassRegistration<TestBufferLivenessPass>();
}
} // namespace mlir::ho::test
