//===- PlanNeighboursTest.cpp - The local search's moves -----------------===//

#include "PlanNeighbours.h"
#include "HandWrittenBody.h"

#include "hyperoffload/Analysis/LowerBounds.h"
#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Planning/PlanWriter.h"
#include "hyperoffload/Workloads/RandomProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;
using namespace mlir::ho::workloads;

namespace {

/// Whether the two plans make the same decisions.
bool isSamePlan(const OffloadPlan &a, const OffloadPlan &b) {
  auto sameGap = [](const PlannedGap &x, const PlannedGap &y) {
    return x.buffer == y.buffer && x.carrier == y.carrier && x.tier == y.tier &&
           x.storeAfter == y.storeAfter && x.waitBefore == y.waitBefore &&
           x.returnsRemote == y.returnsRemote &&
           x.prefetchBefore == y.prefetchBefore && x.nextUse == y.nextUse;
  };
  auto sameArgument = [](const RemoteArgument &x, const RemoteArgument &y) {
    return x.index == y.index && x.tier == y.tier &&
           x.storeBackWaitBefore == y.storeBackWaitBefore;
  };
  return a.gaps.size() == b.gaps.size() &&
         a.remoteArguments.size() == b.remoteArguments.size() &&
         llvm::all_of(llvm::zip(a.gaps, b.gaps),
                      [&](auto pair) {
                        return sameGap(std::get<0>(pair), std::get<1>(pair));
                      }) &&
         llvm::all_of(
             llvm::zip(a.remoteArguments, b.remoteArguments), [&](auto pair) {
               return sameArgument(std::get<0>(pair), std::get<1>(pair));
             });
}

/// Every neighbour of the planner's plans on random functions differs from
/// the plan, keeps each transfer inside its gap and is written by
/// PlanWriter into a function that verifies: the local search only ever
/// tries plans the pass can write.
TEST(PlanNeighboursTest, NeighboursAreWritablePlansInsideTheirGaps) {
  MLIRContext context;
  context.loadDialect<HODialect, func::FuncDialect>();
  unsigned checked = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomEngine rng(seed);
    Target target = drawRandomTarget(rng, {1, 2, 1, false});
    OwningOpRef<ModuleOp> module =
        buildRandomFunction(context, rng, target, {6, 14});
    auto function = *module->getOps<func::FuncOp>().begin();
    Block &body = function.getBody().front();
    int64_t bound =
        computeLowerBounds(body, target, target.device.hbmCapacity).memoryBytes;
    BufferLiveness liveness(body, target.device.allocationGranularity);
    int64_t peak = liveness.getPeakBytes();
    for (bool leastMemory : {false, true}) {
      PlannerOptions options;
      options.budget = (bound + peak) / 2;
      options.leastMemory = leastMemory;
      OffloadPlan plan = planOffload(body, target, options);
      PlanningContext planning(body, target, options.budget);
      for (const NeighbourPlan &neighbour : getNeighbourPlans(plan, planning)) {
        ++checked;
        EXPECT_FALSE(isSamePlan(neighbour.plan, plan)) << "seed " << seed;
        for (const PlannedGap &gap : neighbour.plan.gaps) {
          EXPECT_LE(gap.prefetchBefore, gap.returnsRemote
                                            ? liveness.getExitPoint() + 1
                                            : gap.nextUse)
              << "seed " << seed;
          if (gap.storeAfter) {
            EXPECT_GT(gap.prefetchBefore, *gap.storeAfter) << "seed " << seed;
          }
          if (gap.waitBefore) {
            EXPECT_LE(*gap.waitBefore, gap.prefetchBefore) << "seed " << seed;
            ASSERT_TRUE(gap.storeAfter.has_value()) << "seed " << seed;
            EXPECT_GT(*gap.waitBefore, *gap.storeAfter) << "seed " << seed;
          }
        }
        OwningOpRef<func::FuncOp> copy = function.clone();
        PlanWriter(*copy, BufferLiveness(copy->getBody().front(),
                                         target.device.allocationGranularity))
            .write(neighbour.plan);
        EXPECT_TRUE(succeeded(verify(*copy))) << "seed " << seed;
      }
    }
  }
  EXPECT_GE(checked, 200u);
}

/// One argument kept in the pool and one activation stored and fetched
/// back with a wait: the moves are each decision undone or shifted by one
/// op within its gap, and nothing else.
TEST(PlanNeighboursTest, MovesEachDecisionByOne) {
  HandWrittenBody setup(R"mlir(
    func.func @f(%w: tensor<1024xf32>, %x: tensor<1024xf32>) -> tensor<1024xf32> {
      %a = ho.compute "a"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
      %b = ho.compute "b"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
      %c = ho.compute "c"(%b) : (tensor<1024xf32>) -> tensor<1024xf32>
      %d = ho.compute "d"(%c) : (tensor<1024xf32>) -> tensor<1024xf32>
      %e = ho.compute "e"(%a, %d, %w) : (tensor<1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      return %e : tensor<1024xf32>
    })mlir");
  ASSERT_TRUE(setup.isValid());
  Block &body = setup.getBody();
  PlanningContext &planning = setup.getPlanning();
  const BufferLiveness &liveness = planning.getLiveness();
  // Points: entry 0, ops a-e at 1-5, the return at 6.
  BufferId w = liveness.lookup(body.getArgument(0))->id;
  BufferId a = liveness.lookup(body.front().getResult(0))->id;
  OffloadPlan plan;
  plan.remoteArguments.push_back({0, MemoryTier::pool});
  plan.gaps.push_back({w, std::nullopt, MemoryTier::pool, std::nullopt,
                       std::nullopt, false, /*prefetchBefore=*/3,
                       /*nextUse=*/5});
  plan.gaps.push_back({a, 0u, MemoryTier::pool, /*storeAfter=*/1u,
                       /*waitBefore=*/3u, false, /*prefetchBefore=*/4,
                       /*nextUse=*/5});
  llvm::sort(plan.gaps, [](const PlannedGap &x, const PlannedGap &y) {
    return x.buffer < y.buffer;
  });
  std::vector<NeighbourPlan> neighbours = getNeighbourPlans(plan, planning);
  // Gaps taken are only paired: they save memory and add a transfer.
  for (const NeighbourPlan &neighbour : neighbours)
    if (!neighbour.alone) {
      EXPECT_TRUE(neighbour.savesMemory);
      EXPECT_GT(neighbour.plan.gaps.size() +
                    neighbour.plan.remoteArguments.size(),
                plan.gaps.size() + plan.remoteArguments.size());
    }
  llvm::erase_if(neighbours, [](const NeighbourPlan &neighbour) {
    return !neighbour.alone;
  });
  unsigned tiers = planning.getTiers().size();
  // The argument: on the device, or in each other tier. The activation:
  // not taken, in each other tier, its wait dropped or one op earlier or
  // later (before the fetch's op), its fetch one op earlier (before the
  // wait's op) or later. The argument's fetch: one op earlier or later.
  unsigned expected = tiers + (tiers + 3 + 2) + 2;
  EXPECT_EQ(neighbours.size(), expected);
  unsigned savingMemory = llvm::count_if(
      neighbours, [](const NeighbourPlan &n) { return n.savesMemory; });
  // The activation's wait one op earlier; its fetch and the argument's one
  // op later.
  EXPECT_EQ(savingMemory, 3u);
  auto hasGap = [&](auto predicate) {
    return llvm::any_of(neighbours, [&](const NeighbourPlan &n) {
      return llvm::any_of(n.plan.gaps, predicate);
    });
  };
  EXPECT_TRUE(hasGap([&](const PlannedGap &gap) {
    return gap.buffer == a && gap.waitBefore == 2u;
  }));
  EXPECT_TRUE(hasGap([&](const PlannedGap &gap) {
    return gap.buffer == a && gap.prefetchBefore == 3;
  }));
  EXPECT_FALSE(hasGap([&](const PlannedGap &gap) {
    return gap.buffer == a && gap.prefetchBefore == 2;
  }));
  EXPECT_TRUE(hasGap([&](const PlannedGap &gap) {
    return gap.buffer == w && gap.prefetchBefore == 2;
  }));
  // Dropping the argument drops its stretch with it.
  EXPECT_TRUE(llvm::any_of(neighbours, [&](const NeighbourPlan &n) {
    return n.plan.remoteArguments.empty() && n.plan.gaps.size() == 1;
  }));
}

TEST(PlanNeighboursTest, MovesAStoreFromTheLastWriteToTheLastUse) {
  // %a is made by "a", read by "b", written in place by "c", read by "d",
  // and read again by "f" after the gap.
  HandWrittenBody setup(R"mlir(
    func.func @f(%x: tensor<1024xf32>) -> tensor<1024xf32> {
      %a = ho.compute "a"(%x) : (tensor<1024xf32>) -> tensor<1024xf32>
      %b = ho.compute "b"(%a) : (tensor<1024xf32>) -> tensor<1024xf32>
      %c = ho.compute "c"(%a, %b) {tied_operands = array<i64: 0>} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      %d = ho.compute "d"(%c) : (tensor<1024xf32>) -> tensor<1024xf32>
      %e = ho.compute "e"(%d) : (tensor<1024xf32>) -> tensor<1024xf32>
      %f = ho.compute "f"(%c, %e) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
      return %f : tensor<1024xf32>
    })mlir");
  ASSERT_TRUE(setup.isValid());
  Block &body = setup.getBody();
  PlanningContext &planning = setup.getPlanning();
  // Points: entry 0, ops a-f at 1-6. The data "f" reads is final after
  // "c" (3), and last read before the gap by "d" (4).
  BufferId a = planning.getLiveness().lookup(body.front().getResult(0))->id;
  EXPECT_EQ(planning.getStoreReadyPoint(a, /*lastUse=*/4), 3u);
  EXPECT_EQ(planning.getStoreReadyPoint(a, /*lastUse=*/2), 1u);
  auto storesAfter = [&](unsigned storeAfter) {
    OffloadPlan plan;
    plan.gaps.push_back({a, 1u, MemoryTier::pool, storeAfter, std::nullopt,
                         false, /*prefetchBefore=*/6, /*nextUse=*/6});
    SmallVector<std::pair<unsigned, bool>> moved;
    for (const NeighbourPlan &neighbour : getStoreMoves(plan, planning))
      moved.push_back(
          {*neighbour.plan.gaps.front().storeAfter, neighbour.savesMemory});
    // The other moves leave the store where it is.
    for (const NeighbourPlan &neighbour : getNeighbourPlans(plan, planning))
      for (const PlannedGap &gap : neighbour.plan.gaps) {
        if (gap.buffer == a && gap.nextUse == 6) {
          EXPECT_EQ(gap.storeAfter, storeAfter);
        }
      }
    return moved;
  };
  // An earlier store frees the buffer sooner.
  using Moves = SmallVector<std::pair<unsigned, bool>>;
  EXPECT_EQ(storesAfter(4), (Moves{{3, true}}));
  EXPECT_EQ(storesAfter(3), (Moves{{4, false}}));
}

} // namespace
