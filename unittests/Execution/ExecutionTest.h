//===- ExecutionTest.h - Plans run next to their programs in tests -*- C++
//-*-===//
//
// The fixture of the execution tests: parses a program and a placed plan of
// a function @step, JIT-compiles both (the plan lowered, then edited as a
// test breaks it) and runs them on the threaded runtime with every copy
// started only when a wait needs it, the slowest links a plan must
// tolerate.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_UNITTESTS_EXECUTION_EXECUTIONTEST_H
#define HYPEROFFLOAD_UNITTESTS_EXECUTION_EXECUTIONTEST_H

#include "hyperoffload/Execution/JitFunction.h"
#include "hyperoffload/Execution/PlanExecution.h"

#include "hyperoffload/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <functional>

namespace mlir {
namespace ho {

/// Erases the `index`-th call of `callee` in `module`.
inline void eraseCall(ModuleOp module, StringRef callee, unsigned index) {
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    if (call.getCallee() == callee)
      calls.push_back(call);
  });
  ASSERT_LT(index, calls.size());
  calls[index].erase();
}

class ExecutionTest : public ::testing::Test {
protected:
  ExecutionTest() {
    DialectRegistry registry;
    registerHyperOffloadDialects(registry);
    registerExecutionDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  std::unique_ptr<JitFunction> compile(StringRef source,
                                       const JitFunction::Options &options) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    if (!module)
      return nullptr;
    FailureOr<std::unique_ptr<JitFunction>> jit =
        JitFunction::compile(*module, "step", options);
    EXPECT_TRUE(succeeded(jit));
    return succeeded(jit) ? std::move(*jit) : nullptr;
  }

  /// Runs `plan` (after `edit` of its lowered module) against `program` on
  /// the inputs of `seed`.
  ExecutionComparison compare(StringRef program, StringRef plan,
                              std::function<void(ModuleOp)> edit = nullptr,
                              bool checkIntegrity = true, uint64_t seed = 1) {
    JitFunction::Options options;
    options.checkIntegrity = checkIntegrity;
    std::unique_ptr<JitFunction> unplanned = compile(program, options);
    options.editLowered = std::move(edit);
    std::unique_ptr<JitFunction> planned = compile(plan, options);
    if (!unplanned || !planned)
      return {};
    ExecutionOptions execution;
    execution.seed = seed;
    execution.repetitions = 1;
    execution.runtime.copyOnlyWhenWaited = true;
    execution.runtime.checkIntegrity = checkIntegrity;
    llvm::Expected<ExecutionComparison> comparison =
        compareWithUnplanned(*unplanned, *planned, execution);
    EXPECT_TRUE(static_cast<bool>(comparison));
    if (!comparison) {
      llvm::consumeError(comparison.takeError());
      return {};
    }
    return std::move(*comparison);
  }

  MLIRContext context;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_UNITTESTS_EXECUTION_EXECUTIONTEST_H
