//===- LowerBoundsTest.cpp - Lower bounds computed by hand ----------------===//
//
// A target with round numbers: 1 TFLOP/s, 1 TB/s of HBM, and a 1 GB/s link
// to the pool without latency, so that 1e6 bytes (a tensor<250000xf32>) take
// 1 ms to move and 1e9 FLOPs take 1 ms to compute.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Analysis/LowerBounds.h"

#include "RoundNumbersTarget.h"

#include "hyperoffload/Dialect/HO/HODialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::ho;

namespace {
constexpr double kMs = 1e-3;
constexpr double kTolerance = 1e-12;
constexpr int64_t kMB = 1000000;

class LowerBoundsTest : public ::testing::Test {
protected:
  LowerBoundsTest() {
    context.loadDialect<HODialect, func::FuncDialect, tensor::TensorDialect>();
  }

  LowerBounds compute(llvm::StringRef ir, int64_t budget) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << "test IR does not parse";
    if (!module)
      return LowerBounds();
    auto function = *module->getOps<func::FuncOp>().begin();
    return computeLowerBounds(function.getBody().front(), target, budget);
  }

  /// The op at `index` in the function body.
  Operation *getOp(unsigned index) {
    auto function = *module->getOps<func::FuncOp>().begin();
    return &*std::next(function.getBody().front().begin(), index);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  Target target = makeRoundNumbersTarget();
};

// A view and an in-place update share their source's buffer: the 4000-byte
// cache counts once, next to the 40-byte new entries.
TEST_F(LowerBoundsTest, WorkingSetCountsAliasesOnce) {
  constexpr llvm::StringLiteral ir = R"mlir(
    func.func @f(%cache: tensor<1000xf32>, %new: tensor<10xf32>) -> tensor<1000xf32> {
      %keys = tensor.extract_slice %cache[0] [500] [1]
          : tensor<1000xf32> to tensor<500xf32>
      %updated = ho.compute "kv_append"(%cache, %keys, %new)
          {tied_operands = array<i64: 0>}
          : (tensor<1000xf32>, tensor<500xf32>, tensor<10xf32>) -> tensor<1000xf32>
      return %updated : tensor<1000xf32>
    }
  )mlir";
  LowerBounds bounds = compute(ir, 0);
  EXPECT_EQ(bounds.budget, int64_t(1) << 30);
  EXPECT_EQ(bounds.memoryBytes, 4040);
  EXPECT_EQ(bounds.memoryOp, getOp(1));

  // Each buffer rounds up to the allocation granularity.
  target.device.allocationGranularity = 512;
  bounds = compute(ir, 0);
  EXPECT_EQ(bounds.memoryBytes, 4096 + 512);
}

// Every device result must be on the device at exit, a value returned twice
// once: the return needs more than any op.
// Results may go back to the caller in a tier (ho-plan-offload returns them
// as !ho.remote): the return needs nothing on the device, and the bound is
// what one op needs.
TEST_F(LowerBoundsTest, ResultsNeedNotBeResidentAtExit) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f(%r: !ho.remote<tensor<1000xf32>>)
        -> (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, !ho.remote<tensor<1000xf32>>) {
      %a = ho.compute "k"() : () -> tensor<1000xf32>
      %b = ho.compute "k"() : () -> tensor<1000xf32>
      return %a, %b, %a, %r
          : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>, !ho.remote<tensor<1000xf32>>
    }
  )mlir",
                               0);
  EXPECT_EQ(bounds.memoryBytes, 4000);
  EXPECT_EQ(bounds.memoryOp, getOp(0));
  // The remote argument is only returned: it need not reach the device.
  EXPECT_TRUE(bounds.transfers.empty());
}

// A cache updated in place and returned is the caller's: it may be handed
// back in a tier (ho-plan-offload returns it as !ho.remote), so only the
// update needs it on the device.
TEST_F(LowerBoundsTest, ReturnedArgumentsNeedNotBeResidentAtExit) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f(%cache: tensor<1000xf32>, %new: tensor<10xf32>)
        -> (tensor<1000xf32>, tensor<10xf32>) {
      %updated = ho.compute "kv_append"(%cache, %new)
          {tied_operands = array<i64: 0>}
          : (tensor<1000xf32>, tensor<10xf32>) -> tensor<1000xf32>
      %out = ho.compute "k"() : () -> tensor<10xf32>
      return %updated, %out : tensor<1000xf32>, tensor<10xf32>
    }
  )mlir",
                               4100);
  // The update needs the cache and the new entries; the return only %out.
  EXPECT_EQ(bounds.memoryBytes, 4040);
  EXPECT_EQ(bounds.memoryOp, getOp(0));
  // Nothing is live with the cache after its update: nothing must move.
  EXPECT_TRUE(bounds.transfers.empty());
}

// A result created during the step exists until the return, but may wait
// for it in a tier: of the 3 MB live at the third op, %a must leave to keep
// the budget but need not come back (ho-plan-offload returns it as
// !ho.remote).
TEST_F(LowerBoundsTest, ResultsMayWaitForTheReturnInATier) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f() -> tensor<250000xf32> {
      %a = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %b = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %c = ho.compute "k"(%b) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<250000xf32>
      %z = ho.compute "k"(%c) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<0xf32>
      return %a : tensor<250000xf32>
    }
  )mlir",
                               2500000);
  EXPECT_EQ(bounds.spillBytesToDevice, 0);
  EXPECT_EQ(bounds.spillBytesFromDevice, kMB / 2);
  ASSERT_EQ(bounds.transfers.size(), 1u);
  EXPECT_FALSE(bounds.transfers[0].toDevice);
}

// Live data of 3 MB at the third op against a 2.5 MB budget: 0.5 MB of it
// (%a, not used there) must leave the device and come back.
constexpr llvm::StringLiteral kPressure = R"mlir(
  func.func @f() {
    %a = ho.compute "k"() {flops = 1000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
    %b = ho.compute "k"() {flops = 1000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
    %c = ho.compute "k"(%b) {flops = 1000000 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>) -> tensor<250000xf32>
    %z = ho.compute "k"(%a, %c) {flops = 1000000 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
    return
  }
)mlir";

TEST_F(LowerBoundsTest, ExcessOverBudgetMustCrossBothWays) {
  LowerBounds bounds = compute(kPressure, 2500000);
  EXPECT_EQ(bounds.memoryBytes, 2 * kMB);
  EXPECT_TRUE(bounds.fitsBudget());
  EXPECT_NEAR(bounds.computeSeconds, 4e-6, kTolerance);
  EXPECT_EQ(bounds.spillBytesToDevice, kMB / 2);
  EXPECT_EQ(bounds.spillBytesFromDevice, kMB / 2);
  ASSERT_EQ(bounds.transfers.size(), 2u);
  EXPECT_EQ(bounds.transfers[0].tier, MemoryTier::pool);
  EXPECT_TRUE(bounds.transfers[0].toDevice);
  EXPECT_EQ(bounds.transfers[0].bytes, kMB / 2);
  // The last op reads %a once it is back: 1 us of compute after the fetch.
  EXPECT_NEAR(bounds.transfers[0].trailingComputeSeconds, 1e-6, kTolerance);
  EXPECT_NEAR(bounds.transfers[0].seconds, 0.501 * kMs, kTolerance);
  EXPECT_FALSE(bounds.transfers[1].toDevice);
  EXPECT_EQ(bounds.transfers[1].trailingComputeSeconds, 0);
  EXPECT_NEAR(bounds.transfers[1].seconds, 0.5 * kMs, kTolerance);
  EXPECT_NEAR(bounds.getTimeSeconds(), 0.501 * kMs, kTolerance);
  // %a moves whole: out once it exists (1 us), back once %c is made.
  EXPECT_NEAR(bounds.deadlineSeconds, 2.003 * kMs, kTolerance);
  // Gaps are to the higher of the two.
  EXPECT_NEAR(*bounds.getGap(4.006 * kMs), 1.0, 1e-9);

  // One latency per direction.
  target.getLink(MemoryTier::pool)->latency = 0.25 * kMs;
  bounds = compute(kPressure, 2500000);
  EXPECT_NEAR(bounds.getTimeSeconds(), 0.751 * kMs, kTolerance);
}

TEST_F(LowerBoundsTest, NothingCrossesWhenTheProfileFits) {
  LowerBounds bounds = compute(kPressure, 3 * kMB);
  EXPECT_EQ(bounds.spillBytesToDevice, 0);
  EXPECT_EQ(bounds.spillBytesFromDevice, 0);
  EXPECT_TRUE(bounds.transfers.empty());
  EXPECT_NEAR(bounds.getTimeSeconds(), 4e-6, kTolerance);
}

// The same computation with %a offloaded and prefetched back: transfers are
// the plan, not the computation, so the bounds do not change.
TEST_F(LowerBoundsTest, PlannedFunctionHasTheSameBounds) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f() {
      %a = ho.compute "k"() {flops = 1000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %ra = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
      %b = ho.compute "k"() {flops = 1000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %c = ho.compute "k"(%b) {flops = 1000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<250000xf32>
      %fa = ho.prefetch %ra : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
      %ta = ho.await %fa : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
      %z = ho.compute "k"(%ta, %c) {flops = 1000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
      return
    }
  )mlir",
                               2500000);
  EXPECT_EQ(bounds.memoryBytes, 2 * kMB);
  EXPECT_EQ(bounds.spillBytesToDevice, kMB / 2);
  EXPECT_EQ(bounds.spillBytesFromDevice, kMB / 2);
  EXPECT_NEAR(bounds.computeSeconds, 4e-6, kTolerance);
}

// The caller holds %w from entry, on the device or in a tier: under
// pressure before its first use, it must come to the device, but it never
// has to leave it.
TEST_F(LowerBoundsTest, ArgumentsNeedNotLeaveTheDevice) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f(%w: tensor<250000xf32>) {
      %a = ho.compute "k"() : () -> tensor<250000xf32>
      %b = ho.compute "k"(%a) : (tensor<250000xf32>) -> tensor<250000xf32>
      %z = ho.compute "k"(%b, %w) : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
      return
    }
  )mlir",
                               2 * kMB);
  EXPECT_EQ(bounds.spillBytesToDevice, kMB);
  EXPECT_EQ(bounds.spillBytesFromDevice, 0);
}

// Two pressure points, the 3rd and the 6th op, with %w away at both. The
// 4th op uses %w or an empty argument.
static std::string getTwoPressurePoints(bool useInBetween) {
  std::string ir = R"mlir(
    func.func @f(%none: tensor<0xf32>) {
      %w = ho.compute "k"() : () -> tensor<250000xf32>
      %a = ho.compute "k"() : () -> tensor<250000xf32>
      %b = ho.compute "k"(%a) : (tensor<250000xf32>) -> tensor<250000xf32>
      %x = ho.compute "k"(%b, OPERAND) : (tensor<250000xf32>, TYPE) -> tensor<0xf32>
      %c = ho.compute "k"() : () -> tensor<250000xf32>
      %d = ho.compute "k"(%c) : (tensor<250000xf32>) -> tensor<250000xf32>
      %y = ho.compute "k"(%d, %w)
          : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
      return
    }
  )mlir";
  ir.replace(ir.find("OPERAND"), 7, useInBetween ? "%w" : "%none");
  ir.replace(ir.find("TYPE"), 4,
             useInBetween ? "tensor<250000xf32>" : "tensor<0xf32>");
  return ir;
}

// Without a use of %w in between, one round trip serves both points: 1 MB
// each way, not 2.
TEST_F(LowerBoundsTest, OneRoundTripCanServeTwoPressurePoints) {
  LowerBounds bounds =
      compute(getTwoPressurePoints(/*useInBetween=*/false), 2 * kMB);
  EXPECT_EQ(bounds.spillBytesToDevice, kMB);
  EXPECT_EQ(bounds.spillBytesFromDevice, kMB);
}

// With a use of %w in between it must come back twice; but a copy that it
// is not written after serves both absences: it leaves the device once.
TEST_F(LowerBoundsTest, AUseBetweenPressurePointsNeedsTwoFetches) {
  LowerBounds bounds =
      compute(getTwoPressurePoints(/*useInBetween=*/true), 2 * kMB);
  EXPECT_EQ(bounds.spillBytesToDevice, 2 * kMB);
  EXPECT_EQ(bounds.spillBytesFromDevice, kMB);
}

// A remote argument that an op uses crosses its own link at least once; one
// that is prefetched but never used need not.
TEST_F(LowerBoundsTest, UsedRemoteArgumentsCrossTheirLink) {
  target.links[static_cast<unsigned>(MemoryTier::host)] =
      makeRoundNumbersLink(0.5e9);
  LowerBounds bounds = compute(R"mlir(
    func.func @f(%p: !ho.remote<tensor<250000xf32>>,
                 %h: !ho.remote<tensor<250000xf32>, host>,
                 %unused: !ho.remote<tensor<250000xf32>>) {
      %fp = ho.prefetch %p : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
      %fh = ho.prefetch %h : !ho.remote<tensor<250000xf32>, host> -> !ho.future<tensor<250000xf32>>
      %fu = ho.prefetch %unused : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
      %tp = ho.await %fp : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
      %th = ho.await %fh : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
      %tu = ho.await %fu : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
      %z = ho.compute "k"(%tp, %th) : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
      return
    }
  )mlir",
                               0);
  EXPECT_EQ(bounds.remoteArgumentBytes[static_cast<unsigned>(MemoryTier::pool)],
            kMB);
  EXPECT_EQ(bounds.remoteArgumentBytes[static_cast<unsigned>(MemoryTier::host)],
            kMB);
  ASSERT_EQ(bounds.transfers.size(), 2u);
  // Each fetch is read by the last op: 2 us (2 MB of HBM traffic) after it.
  EXPECT_EQ(bounds.transfers[0].tier, MemoryTier::pool);
  EXPECT_NEAR(bounds.transfers[0].seconds, 1.002 * kMs, kTolerance);
  EXPECT_EQ(bounds.transfers[1].tier, MemoryTier::host);
  EXPECT_NEAR(bounds.transfers[1].seconds, 2.002 * kMs, kTolerance);
  EXPECT_NEAR(bounds.getTimeSeconds(), 2.002 * kMs, kTolerance);
}

// With two links, spilled bytes may take either: they share the load.
TEST_F(LowerBoundsTest, SpillMayUseEveryLink) {
  target.links[static_cast<unsigned>(MemoryTier::host)] =
      makeRoundNumbersLink(1e9);
  LowerBounds bounds = compute(kPressure, 2 * kMB);
  ASSERT_EQ(bounds.transfers.size(), 2u);
  EXPECT_EQ(bounds.transfers[0].tier, std::nullopt);
  EXPECT_EQ(bounds.transfers[0].bytes, kMB);
  EXPECT_NEAR(bounds.transfers[0].seconds, 0.501 * kMs, kTolerance);
}

// The fetch of %a is read at %d, and %e depends on %d: 3 ms of compute
// follow the fetch whatever the order. %f does not depend on %d and could
// run before it, so it does not count.
TEST_F(LowerBoundsTest, DependentComputeFollowsTheLastFetch) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f() {
      %a = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %b = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
      %c = ho.compute "k"(%b) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<250000xf32>
      %d = ho.compute "k"(%a) {flops = 2000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      %e = ho.compute "k"(%d) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<4xf32>
      %f = ho.compute "k"(%c) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      return
    }
  )mlir",
                               2500000);
  EXPECT_EQ(bounds.spillBytesToDevice, kMB / 2);
  ASSERT_FALSE(bounds.transfers.empty());
  EXPECT_TRUE(bounds.transfers[0].toDevice);
  EXPECT_NEAR(bounds.transfers[0].trailingComputeSeconds, 3 * kMs, kTolerance);
  EXPECT_NEAR(bounds.transfers[0].seconds, 3.5 * kMs, kTolerance);
  EXPECT_NEAR(bounds.getTimeSeconds(), 4 * kMs, kTolerance);
}

// %w must be away while %b is computed, and comes back for the matmul. That
// matmul may run in column blocks of %w (ho-plan-offload splits such
// weights), so only its last block, of no set size, need follow the fetch:
// the 1 ms that depends on it counts, the matmul itself does not. With a
// cost hint the matmul stays whole and its 1 ms counts too.
TEST_F(LowerBoundsTest, AColumnSplittableReaderCountsOnlyWhatDependsOnIt) {
  auto trailing = [&](llvm::StringRef matmulHint) {
    std::string ir = (R"mlir(
      func.func @f(%x: tensor<1x500xf32>, %w: tensor<500x500xf32>) {
        %a = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
        %b = ho.compute "k"(%a) {flops = 0 : i64, bytes = 0 : i64}
            : (tensor<250000xf32>) -> tensor<250000xf32>
        %y = ho.compute "matmul"(%x, %w) )mlir" +
                      matmulHint + R"mlir(
            : (tensor<1x500xf32>, tensor<500x500xf32>) -> tensor<1x500xf32>
        %z = ho.compute "k"(%y, %b) {flops = 1000000000 : i64, bytes = 0 : i64}
            : (tensor<1x500xf32>, tensor<250000xf32>) -> tensor<4xf32>
        return
      }
    )mlir")
                         .str();
    LowerBounds bounds = compute(ir, 2500000);
    EXPECT_GT(bounds.spillBytesToDevice, 0);
    return bounds.transfers.empty()
               ? -1.0
               : bounds.transfers[0].trailingComputeSeconds;
  };
  EXPECT_NEAR(trailing(""), 1 * kMs, kTolerance);
  EXPECT_NEAR(trailing("{flops = 1000000000 : i64, bytes = 0 : i64}"), 2 * kMs,
              kTolerance);
}

TEST_F(LowerBoundsTest, InfeasibleBudgetNamesTheOp) {
  LowerBounds bounds = compute(kPressure, kMB);
  EXPECT_FALSE(bounds.fitsBudget());
  // Nothing is said to cross for a budget that nothing fits in.
  EXPECT_TRUE(bounds.transfers.empty());

  std::string message;
  Location loc = UnknownLoc::get(&context);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    loc = diag.getLocation();
    return success();
  });
  EXPECT_TRUE(failed(checkBudgetFits(bounds)));
  EXPECT_EQ(message, "budget 1.00 MB is below what this op needs at once: "
                     "2.00 MB (1.00 MB more); no schedule fits");
  EXPECT_EQ(loc, getOp(2)->getLoc());

  message.clear();
  bounds = compute(kPressure, 2 * kMB);
  EXPECT_TRUE(succeeded(checkBudgetFits(bounds)));
  EXPECT_TRUE(message.empty());
}
} // namespace

namespace {
// 1 MB `a` is read by w2 and again by w5; w3 makes 1 MB `big`, which w4
// reads. With 1.5 MB, 500,016 bytes cannot be on the device at w3 and w4
// (the excess: `a`, `big` and 16 bytes), and only `a` can be away there, as
// a whole: it can leave once w1 has made it (1 ms) and takes 1 ms at 1 GB/s,
// so w3 starts at 2 ms at the earliest and w3 and w4 (2 ms) follow. It can
// come back only once w4 has ended (at 4 ms), in 1 ms, before w5 (1 ms):
// 6 ms. The other bounds say 4.1 ms, the compute; the best schedule the
// planner can write takes 6.1 ms (store `a` after w2, fetch it after w4).
TEST_F(LowerBoundsTest, DeadlinesAtThePointsOfExcess) {
  LowerBounds bounds = compute(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<250000xf32>
      %b = ho.compute "w2"(%a) {flops = 100000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      %big = ho.compute "w3"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<250000xf32>
      %c = ho.compute "w4"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      %d = ho.compute "w5"(%a, %c) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %d : tensor<4xf32>
    })mlir",
                               1500000);
  EXPECT_NEAR(bounds.getTimeSeconds(), 4.1 * kMs, kTolerance);
  EXPECT_NEAR(bounds.deadlineSeconds, 6 * kMs, kTolerance);
  EXPECT_NEAR(bounds.getTighterTimeSeconds(), bounds.deadlineSeconds,
              kTolerance);
  // Without an excess the deadlines add nothing to the compute.
  EXPECT_NEAR(compute(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<4xf32>
      return %a : tensor<4xf32>
    })mlir",
                      kMB)
                  .deadlineSeconds,
              1 * kMs, kTolerance);
}

// The 1 MB argument %w is read by w1 and w4, and w2 makes 1 MB `big`. With
// 1.5 MB, %w cannot stay on the device (the caller's buffer lives from
// entry to exit, and `big` needs the room), so the caller keeps it in a
// tier: it is fetched before w1 (1 ms at 1 GB/s), is away while w2 and w3
// run (1 ms each), and comes back after w3 (1 ms), before w4 (1 ms): 6 ms,
// which the time bound (4 ms, the compute) misses.
TEST_F(LowerBoundsTest, AnArgumentEitherStaysOrStartsInATier) {
  llvm::StringRef ir = R"mlir(
    func.func @f(%w: tensor<250000xf32>) -> tensor<4xf32> {
      %a = ho.compute "w1"(%w) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      %big = ho.compute "w2"(%a) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<250000xf32>
      %c = ho.compute "w3"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      %d = ho.compute "w4"(%w, %c) {flops = 1000000000 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %d : tensor<4xf32>
    })mlir";
  LowerBounds bounds = compute(ir, 1500000);
  EXPECT_NEAR(bounds.getTimeSeconds(), 4 * kMs, kTolerance);
  EXPECT_NEAR(bounds.deadlineSeconds, 6 * kMs, kTolerance);
  // A runtime that finds %w on the device with a copy in a tier (the
  // reactive runtime) drops it for free: only the fetch after w3 is left.
  EXPECT_NEAR(bounds.copiedArgumentsDeadlineSeconds, 5 * kMs, kTolerance);
  EXPECT_NEAR(bounds.getTighterTimeSeconds(ArgumentResidence::copiedToTier),
              5 * kMs, kTolerance);
  // With room for %w and `big` together, %w stays and nothing moves.
  EXPECT_NEAR(compute(ir, 2000032).getTighterTimeSeconds(), 4 * kMs,
              kTolerance);
}

// %a must be away at w2 and w3 (only it can be), and nothing takes time but
// moving it. The pool takes 3 GB/s out and gives 1 GB/s back, the host the
// reverse: with the directions pooled, the time bound moves the 500,016
// bytes of excess at 4 GB/s (0.125 ms), and 1 MB would leave in 0.25 ms
// and come back in 0.25 ms. But %a comes back through the tier it went to,
// 1/3 + 1 ms a MB either way: split between both tiers at best, 1 MB takes
// 1 / (0.75 + 0.75) ms, 0.667 ms, out and back.
TEST_F(LowerBoundsTest, ARoundTripGoesThroughOneTier) {
  target.getLink(MemoryTier::pool)->bandwidthFromDevice = 3e9;
  LinkModel host = makeRoundNumbersLink();
  host.bandwidthToDevice = 3e9;
  target.links[static_cast<unsigned>(MemoryTier::host)] = host;
  LowerBounds bounds = compute(R"mlir(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = ho.compute "w1"(%x) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<250000xf32>
      %big = ho.compute "w2"(%x) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<4xf32>) -> tensor<250000xf32>
      %c = ho.compute "w3"(%big) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>) -> tensor<4xf32>
      %d = ho.compute "w4"(%a, %c) {flops = 0 : i64, bytes = 0 : i64}
          : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %d : tensor<4xf32>
    })mlir",
                               1500000);
  EXPECT_NEAR(bounds.getTimeSeconds(), 500016 / 4e9, kTolerance);
  EXPECT_NEAR(bounds.deadlineSeconds, kMs / 1.5, kTolerance);
}
} // namespace
