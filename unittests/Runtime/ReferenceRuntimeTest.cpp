//===- ReferenceRuntimeTest.cpp - A lowered plan moves the right bytes ----===//
//
// Runs the runtime calls of a plan lowered by ho-lower-to-runtime against
// the reference runtime, interpreting the calls and constants in order, and
// checks where the bytes end up.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Runtime/ReferenceRuntime.h"

#include "hyperoffload/InitAll.h"
#include "hyperoffload/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::ho;

namespace {
std::vector<int8_t> makePattern(size_t size, int8_t first) {
  std::vector<int8_t> bytes(size);
  std::iota(bytes.begin(), bytes.end(), first);
  return bytes;
}

// Two picks (experts 5 and 7) at offset 0; two 8-byte slots at offset 16.
// A prediction of 5 and 6 fetches 5 and 6; before the kernel, 7 replaces
// the wrong guess 6 and 5 stays.
TEST(ReferenceRuntimeTest, RoutedSlotsHoldThePickedExperts) {
  resetReferenceRuntime(64);
  auto writeIds = [](int64_t offset, std::initializer_list<int32_t> ids) {
    std::memcpy(getReferenceArena() + offset, ids.begin(), 4 * ids.size());
  };
  writeIds(0, {5, 7});
  writeIds(8, {5, 6});
  std::vector<ho_remote_t> experts;
  for (int8_t expert = 4; expert < 8; ++expert)
    experts.push_back(
        createReferenceCopy(HO_TIER_POOL, makePattern(8, 10 * expert)));
  ho_routed_t group = ho_routed_begin(/*selection_offset=*/8, /*num_picks=*/2,
                                      /*device_offset=*/16, /*slot_bytes=*/8,
                                      /*slots=*/2);
  for (int64_t expert = 4; expert < 8; ++expert)
    ho_routed_offer(group, HO_TIER_POOL, 0, expert, experts[expert - 4]);
  ho_event_wait(ho_routed_event(group));
  EXPECT_EQ(ho_routed_slot_expert(group, 0), 5);
  EXPECT_EQ(ho_routed_slot_expert(group, 1), 6);

  for (int64_t expert = 4; expert < 8; ++expert)
    ho_routed_ensure(group, /*selection_offset=*/0, 2, HO_TIER_POOL, 0, expert,
                     experts[expert - 4]);
  EXPECT_EQ(ho_routed_slot_expert(group, 0), 5);
  EXPECT_EQ(ho_routed_slot_expert(group, 1), 7);
  std::vector<int8_t> seven = makePattern(8, 70);
  EXPECT_TRUE(std::equal(seven.begin(), seven.end(), getReferenceArena() + 24));
  EXPECT_EQ(llvm::count_if(getReferenceCallLog(),
                           [](const std::string &line) {
                             return llvm::StringRef(line).starts_with(
                                 "routed miss");
                           }),
            1);
}

// Two rows of 3 blocks of 4 bytes (the last short: 10 bytes a row); the
// prefetch guessed blocks {2, 0} and {1, 2}, the selection is {0, 1} and
// {2, 1}: row 0 keeps block 0 and fetches 1, row 1 swaps its two places.
TEST(ReferenceRuntimeTest, BlocksLandInTheSelectionsOrder) {
  resetReferenceRuntime(64);
  auto writeIds = [](int64_t offset, std::initializer_list<int32_t> ids) {
    std::memcpy(getReferenceArena() + offset, ids.begin(), 4 * ids.size());
  };
  writeIds(0, {2, 0, 1, 2});
  writeIds(16, {0, 1, 2, 1});
  std::vector<int8_t> cache = makePattern(20, 1);
  ho_remote_t source = createReferenceCopy(HO_TIER_POOL, cache);
  ho_blocks_t group = ho_blocks_begin(
      HO_TIER_POOL, 0, source, /*selection_offset=*/0, /*rows=*/2,
      /*picks_per_row=*/2, /*row_bytes=*/10, /*block_bytes=*/4,
      /*device_offset=*/32);
  ho_event_wait(ho_blocks_event(group));
  // Row 0's block 2 is its last 2 bytes.
  EXPECT_TRUE(std::equal(cache.begin() + 8, cache.begin() + 10,
                         getReferenceArena() + 32));
  ho_blocks_ensure(group, /*selection_offset=*/16);
  auto block = [&](int64_t row, int64_t index) {
    return std::vector<int8_t>(cache.begin() + row * 10 + index * 4,
                               cache.begin() + row * 10 + index * 4 +
                                   std::min<int64_t>(4, 10 - index * 4));
  };
  auto place = [&](int64_t index, int64_t bytes) {
    int8_t *at = getReferenceArena() + 32 + index * 4;
    return std::vector<int8_t>(at, at + bytes);
  };
  EXPECT_EQ(place(0, 4), block(0, 0));
  EXPECT_EQ(place(1, 4), block(0, 1));
  EXPECT_EQ(place(2, 2), block(1, 2));
  EXPECT_EQ(place(3, 4), block(1, 1));
  EXPECT_EQ(getReferenceCallLog().back(),
            "blocks ensure group=0 selection=16 moved=3 fetched=1");
}

// One row of 2 elements of 4 bytes into rows 1 of a [2, 3, 2] copy: two
// runs of 8 bytes, 24 bytes apart.
TEST(ReferenceRuntimeTest, SliceOffloadWritesOnlyItsRuns) {
  resetReferenceRuntime(64);
  std::vector<int8_t> row = makePattern(16, 100);
  std::copy(row.begin(), row.end(), getReferenceArena());
  std::vector<int8_t> cache(48, 0);
  ho_remote_t dest = createReferenceCopy(HO_TIER_HOST, cache);
  EXPECT_EQ(ho_offload_slice_start(HO_TIER_HOST, 3, dest, 0, /*run_bytes=*/8,
                                   /*runs=*/2, /*dest_offset=*/8,
                                   /*dest_stride=*/24),
            dest);
  std::vector<int8_t> expected(48, 0);
  std::copy(row.begin(), row.begin() + 8, expected.begin() + 8);
  std::copy(row.begin() + 8, row.end(), expected.begin() + 32);
  EXPECT_EQ(getReferenceCopy(dest), expected);
}

TEST(ReferenceRuntimeTest, TransfersMoveTheBytes) {
  resetReferenceRuntime(64);
  std::vector<int8_t> pattern = makePattern(16, 1);
  std::copy(pattern.begin(), pattern.end(), getReferenceArena());
  ho_remote_t copy =
      ho_offload_start(HO_TIER_HOST, ho_queue_from_device(HO_TIER_HOST), 0, 16);
  ho_offload_wait(copy);
  std::fill_n(getReferenceArena(), 16, 0);
  ho_event_t event = ho_prefetch_start(
      HO_TIER_HOST, ho_queue_to_device(HO_TIER_HOST), copy, 32, 16);
  ho_event_wait(event);
  EXPECT_EQ(getReferenceCopy(copy), pattern);
  EXPECT_TRUE(
      std::equal(pattern.begin(), pattern.end(), getReferenceArena() + 32));
  ho_arena_t arena;
  _mlir_ciface_ho_arena_base(&arena);
  EXPECT_EQ(arena.aligned, getReferenceArena());
  EXPECT_EQ(arena.size, 64);
}

/// Runs the runtime calls of `function` in order: constants are evaluated,
/// calls of the interface made with them, and remote arguments passed as
/// `arguments`. Returns the handles the function returns.
SmallVector<int64_t> runTransfers(func::FuncOp function,
                                  ArrayRef<int64_t> arguments) {
  DenseMap<Value, int64_t> values;
  for (auto [arg, handle] :
       llvm::zip(function.getBody().front().getArguments(), arguments))
    values[arg] = handle;
  auto get = [&](Value value) { return values.lookup(value); };
  SmallVector<int64_t> returned;
  for (Operation &op : function.getBody().front()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        values[constant.getResult()] = integer.getInt();
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      StringRef callee = call.getCallee();
      auto args = call.getOperands();
      if (callee == "ho_offload_start")
        values[call.getResult(0)] = ho_offload_start(
            get(args[0]), get(args[1]), get(args[2]), get(args[3]));
      else if (callee == "ho_offload_wait")
        ho_offload_wait(get(args[0]));
      else if (callee == "ho_prefetch_start")
        values[call.getResult(0)] =
            ho_prefetch_start(get(args[0]), get(args[1]), get(args[2]),
                              get(args[3]), get(args[4]));
      else if (callee == "ho_event_wait")
        ho_event_wait(get(args[0]));
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands())
        if (value.getType().isInteger(64))
          returned.push_back(get(value));
    }
  }
  return returned;
}

// A KV cache the caller keeps in the pool is fetched into offset 0, and the
// updated cache is stored back from there; an activation goes to the host
// from offset 16 and comes back to offset 48.
constexpr llvm::StringLiteral kPlacedStep = R"mlir(
  func.func @step(%kv: !ho.remote<tensor<4xf32>> {ho.role = "kv_cache"})
      -> !ho.remote<tensor<4xf32>> attributes {ho.arena_size = 64 : i64} {
    %f = ho.prefetch %kv {ho.offsets = array<i64: 0>} : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
    %cache = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
    %act = ho.compute "act"(%cache) {ho.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
    %r = ho.offload %act : tensor<4xf32> -> !ho.remote<tensor<4xf32>, host>
    ho.wait_offload %r : !ho.remote<tensor<4xf32>, host>
    %g = ho.prefetch %r {ho.offsets = array<i64: 48>} : !ho.remote<tensor<4xf32>, host> -> !ho.future<tensor<4xf32>>
    %back = ho.await %g : !ho.future<tensor<4xf32>> -> tensor<4xf32>
    %new = ho.compute "append"(%cache, %back) {tied_operands = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %out = ho.offload %new : tensor<4xf32> -> !ho.remote<tensor<4xf32>>
    return %out : !ho.remote<tensor<4xf32>>
  }
)mlir";

TEST(ReferenceRuntimeTest, LoweredPlanMovesTheRightBytes) {
  DialectRegistry registry;
  registerHyperOffloadDialects(registry);
  registry.insert<func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kPlacedStep, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  pm.addPass(createLowerToRuntime());
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    diagnostics += diagnostic.str() + "\n";
    return success();
  });
  ASSERT_TRUE(succeeded(pm.run(*module))) << diagnostics;
  auto step = module->lookupSymbol<func::FuncOp>("step");
  ASSERT_TRUE(step);

  resetReferenceRuntime(64);
  std::vector<int8_t> cache = makePattern(16, 1);
  ho_remote_t kv = createReferenceCopy(HO_TIER_POOL, cache);
  // What "act" would have computed.
  std::vector<int8_t> activation = makePattern(16, 101);
  std::copy(activation.begin(), activation.end(), getReferenceArena() + 16);

  SmallVector<int64_t> returned = runTransfers(step, {kv});
  ASSERT_EQ(returned.size(), 1u);
  // The cache came in at 0 and went back from there; the activation went to
  // the host and came back at 48.
  EXPECT_EQ(getReferenceCopy(returned[0]), cache);
  EXPECT_TRUE(std::equal(activation.begin(), activation.end(),
                         getReferenceArena() + 48));
  EXPECT_EQ(getReferenceCallLog(),
            (std::vector<std::string>{
                "prefetch tier=0 queue=0 copy=0 offset=0 bytes=16",
                "wait event 0",
                "offload tier=1 queue=3 offset=16 bytes=16",
                "wait offload 1",
                "prefetch tier=1 queue=2 copy=1 offset=48 bytes=16",
                "wait event 1",
                "offload tier=0 queue=1 offset=0 bytes=16",
            }));
}
} // namespace
