//===- ExactPlanTest.cpp - The exact search against enumeration -----------===//

#include "hyperoffload/Planning/ExactPlan.h"

#include "hyperoffload/Analysis/BufferLiveness.h"
#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Workloads/RandomProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <iostream>

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

namespace {

/// On functions small enough to enumerate every plan, the search with its
/// cuts finds the same optimum (or the same infeasibility) as enumeration.
/// HO_EXACT_SEEDS=<n> tries n seeds instead of the default.
TEST(ExactPlanTest, CutsNeverLoseTheOptimum) {
  MLIRContext context;
  context.loadDialect<HODialect, func::FuncDialect>();
  unsigned compared = 0;
  uint64_t seeds = 24;
  if (const char *count = std::getenv("HO_EXACT_SEEDS"))
    seeds = std::strtoull(count, nullptr, 10);
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    RandomEngine rng(seed);
    Target target = drawRandomTarget(rng, {1, 1, 1, false});
    OwningOpRef<ModuleOp> module =
        buildRandomFunction(context, rng, target, {3, 5});
    auto function = *module->getOps<func::FuncOp>().begin();
    Block &body = function.getBody().front();
    int64_t bound =
        computeLowerBounds(body, target, target.device.hbmCapacity).memoryBytes;
    int64_t peak = BufferLiveness(body, target.device.allocationGranularity)
                       .getPeakBytes();
    for (int64_t budget : {bound, (bound + peak) / 2}) {
      ExactSearchLimits all;
      all.prune = false;
      all.maxSimulations = 10000;
      ExactPlanResult enumerated =
          searchExactPlan(function, target, budget, all);
      if (enumerated.status == ExactStatus::GaveUp)
        continue;
      ExactPlanResult searched = searchExactPlan(function, target, budget);
      ++compared;
      EXPECT_EQ(searched.status, enumerated.status)
          << "seed " << seed << " budget " << budget;
      if (searched.plan && enumerated.plan) {
        EXPECT_DOUBLE_EQ(searched.stepTime, enumerated.stepTime)
            << "seed " << seed << " budget " << budget << " simulations "
            << searched.simulations << " vs " << enumerated.simulations;
      }
    }
  }
  std::cout << compared << " cases enumerated\n";
  EXPECT_GE(compared, 12u);
}

} // namespace
