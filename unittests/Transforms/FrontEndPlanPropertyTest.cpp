//===- FrontEndPlanPropertyTest.cpp - Plans of random linalg functions ----===//
//
// Plans random value-semantic linalg functions (RandomLinalgFunction.h: the
// shared inits, constants, views and in-place chains front ends emit) with
// --hyperoffload on the h200-pcie5 preset, at 1.05x their memory lower
// bound and halfway between it and their peak, and checks that
//
//   1. most such budgets are planned (the pipeline verified the plan): at
//      least the shares below, floors under today's planner;
//   2. every plan lowers with ho-lower-to-runtime and the lowered IR,
//      printed, parses back and verifies.
//
// HO_FRONTEND_SEED=<n> runs only seed n and prints its input and budgets.
//
//===----------------------------------------------------------------------===//

#include "RandomLinalgFunction.h"
#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Interfaces/CostExternalModels.h"
#include "hyperoffload/Target/Target.h"
#include "hyperoffload/Transforms/Passes.h"
#include "hyperoffload/Transforms/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <iostream>
#include <map>

using namespace mlir;
using namespace mlir::ho;
using mlir::ho::test::RandomLinalgFunction;

namespace {
constexpr unsigned kNumSeeds = 300;
/// The shares of budgets that must be planned: at 1.05x the memory bound,
/// and the rest. The planner reaches 48% and 85% on these seeds. Every
/// miss is the pipeline saying that its static plan needs more than the
/// budget; these dense functions of 1 KB tensors leave few gaps between
/// uses, and the bound (what one op reads and writes) is often far below
/// what any schedule needs.
constexpr double kPlannedShareAtBound = 0.45;
constexpr double kPlannedShareHalfway = 0.8;
constexpr llvm::StringLiteral kPreset = "h200-pcie5";

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

class FrontEndPlanPropertyTest : public ::testing::Test {
protected:
  FrontEndPlanPropertyTest() {
    DialectRegistry registry;
    registerCostExternalModels(registry);
    context.appendDialectRegistry(registry);
    context
        .loadDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                     func::FuncDialect, HODialect, linalg::LinalgDialect,
                     memref::MemRefDialect, tensor::TensorDialect>();
    context.printOpOnDiagnostic(false);
  }

  struct PlanOutcome {
    bool planned = false;
    /// The first failure, with the diagnostics; empty when none.
    std::string failure;
  };

  /// Plans `ir` at `budget`; on success, lowers and parses it back.
  PlanOutcome planAndLower(const std::string &ir, int64_t budget) {
    PlanOutcome outcome;
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
    if (!module) {
      outcome.failure = "the input does not parse";
      return outcome;
    }
    std::string diagnostics;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += diagnostic.str() + "\n";
      return success();
    });
    PassManager plan(&context, ModuleOp::getOperationName());
    HyperOffloadPipelineOptions options;
    options.hw = kPreset.str();
    options.budget = std::to_string(budget) + "B";
    buildHyperOffloadPipeline(plan, options);
    if (failed(plan.run(*module))) {
      outcome.failure = diagnostics;
      return outcome;
    }
    outcome.planned = true;
    std::string planned = print(*module);
    PassManager lower(&context, ModuleOp::getOperationName());
    lower.addPass(createLowerToRuntime());
    if (failed(lower.run(*module))) {
      outcome.failure =
          "lowering failed: " + diagnostics + "\nplanned:\n" + planned;
      return outcome;
    }
    std::string lowered = print(*module);
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(lowered, &context);
    if (!parsed || failed(verify(*parsed)))
      outcome.failure =
          "the lowered IR does not parse back: " + diagnostics + "\n" + lowered;
    return outcome;
  }

  /// The budgets a seed is planned at: 1.05x the memory bound and halfway
  /// to the peak, where the peak is above the bound.
  SmallVector<int64_t> getBudgets(const std::string &ir, const Target &target) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
    Block &body = (*module->getOps<func::FuncOp>().begin()).getBody().front();
    int64_t bound =
        computeLowerBounds(body, target, target.device.hbmCapacity).memoryBytes;
    int64_t peak = BufferLiveness(body, target.device.allocationGranularity)
                       .getPeakBytes();
    int64_t low = (bound * 105 + 99) / 100;
    if (peak <= low)
      return {peak};
    return {low, (low + peak) / 2};
  }

  MLIRContext context{MLIRContext::Threading::DISABLED};
};

TEST_F(FrontEndPlanPropertyTest, PlansLowerAndParseBack) {
  llvm::Expected<Target> target = getTargetPreset(kPreset);
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  unsigned first = 0, count = kNumSeeds;
  bool verbose = false;
  if (const char *only = std::getenv("HO_FRONTEND_SEED")) {
    first = std::atoi(only);
    count = 1;
    verbose = true;
  }
  // Per budget kind: 1.05x the bound, halfway to the peak.
  unsigned budgets = 0, planned = 0, unlowered = 0;
  unsigned lowBudgets = 0, lowPlanned = 0;
  std::map<std::string, unsigned> missedBy;
  for (unsigned seed = first; seed < first + count; ++seed) {
    std::string ir = RandomLinalgFunction(seed).build();
    SmallVector<int64_t> seedBudgets = getBudgets(ir, *target);
    for (int64_t budget : seedBudgets) {
      bool low = budget == seedBudgets.front() && seedBudgets.size() > 1;
      ++budgets;
      lowBudgets += low;
      if (verbose)
        std::cout << ir << "budget " << budget << " B\n";
      PlanOutcome outcome = planAndLower(ir, budget);
      if (verbose)
        std::cout << outcome.failure << "\n";
      if (!outcome.planned) {
        ++missedBy[outcome.failure.substr(0, outcome.failure.find(':'))];
        continue;
      }
      ++planned;
      lowPlanned += low;
      if (!outcome.failure.empty()) {
        // Property 2, for every plan.
        if (++unlowered <= 3)
          ADD_FAILURE() << "seed " << seed << ", budget " << budget
                        << " B: " << outcome.failure << "\ninput:\n"
                        << ir;
      }
    }
  }
  std::string missed;
  for (const auto &[reason, times] : missedBy)
    missed += "\n  " + std::to_string(times) + " x " + reason;
  std::cout << count << " seeds, " << budgets << " budgets: " << planned
            << " planned (" << lowPlanned << " of " << lowBudgets
            << " at 1.05x the memory bound), " << planned - unlowered
            << " of them lowered and parsed back" << missed << "\n";
  EXPECT_EQ(unlowered, 0u);
  // Property 1, as floors under what the planner reaches today.
  EXPECT_GE(lowPlanned, lowBudgets * kPlannedShareAtBound) << missed;
  EXPECT_GE(planned - lowPlanned, (budgets - lowBudgets) * kPlannedShareHalfway)
      << missed;
}
} // namespace
