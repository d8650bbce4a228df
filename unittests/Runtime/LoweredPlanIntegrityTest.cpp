//===- LoweredPlanIntegrityTest.cpp - Broken plans caught at their op -----===//
//
// Lowers a placed plan with ho-lower-to-runtime and runs it against the
// threaded runtime with integrity checking, copies started only when a wait
// needs them (the slowest links a plan must tolerate). An interpreter makes
// the runtime calls in order and tells the runtime which arena bytes each op
// reads and writes, as the executor's compiled code does; the data itself
// is not computed. The intact plan runs clean; each way of breaking it (an
// await removed, a wait for a store removed, an offset that overlaps a live
// buffer) is reported at the op that goes wrong.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "hyperoffload/Dialect/HO/HOOps.h"
#include "hyperoffload/InitAll.h"
#include "hyperoffload/Interfaces/CostOpInterface.h"
#include "hyperoffload/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
/// Arena bytes a tensor value lives in, and the buffer they hold.
struct ArenaRange {
  int64_t offset;
  int64_t bytes;
  int64_t owner;
};

/// Runs the lowered `function` against `runtime`, passing remote arguments
/// as fresh copies and placing device-resident ones at their `ho.offset`.
class TransferInterpreter {
public:
  explicit TransferInterpreter(ThreadedRuntime &runtime) : runtime(runtime) {}

  void run(func::FuncOp function) {
    for (BlockArgument arg : function.getArguments()) {
      int64_t owner = arg.getArgNumber();
      if (auto offset = function.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), "ho.offset")) {
        int64_t bytes = *getTensorSizeInBytes(arg.getType());
        runtime.recordInput(offset.getInt(), bytes, owner);
        ranges[arg] = {offset.getInt(), bytes, owner};
      } else if (arg.getType().isInteger(64)) {
        // A remote argument: the caller's copy in the pool.
        integers[arg] = runtime.createCopy(
            HO_TIER_POOL, std::vector<int8_t>(kRemoteArgumentBytes), owner);
      }
    }
    for (Operation &op : function.getBody().front())
      step(op);
  }

  /// Bytes given to every remote argument's copy.
  static constexpr int64_t kRemoteArgumentBytes = 64;

private:
  std::string where(Operation &op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op.getLoc().print(os);
    return text;
  }

  void step(Operation &op) {
    auto get = [&](Value value) { return integers.lookup(value); };
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        integers[constant.getResult()] = integer.getInt();
      return;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      StringRef callee = call.getCallee();
      auto args = call.getOperands();
      if (callee == "ho_offload_start") {
        integers[call.getResult(0)] = runtime.offloadStart(
            get(args[0]), get(args[1]), get(args[2]), get(args[3]));
      } else if (callee == "ho_offload_wait") {
        runtime.offloadWait(get(args[0]));
      } else if (callee == "ho_prefetch_start") {
        integers[call.getResult(0)] =
            runtime.prefetchStart(get(args[0]), get(args[1]), get(args[2]),
                                  get(args[3]), get(args[4]));
        // The bytes will hold what the copy holds.
        landing[get(args[3])] = runtime.getCopyOwner(get(args[2]));
      } else if (callee == "ho_event_wait") {
        runtime.eventWait(get(args[0]));
      }
      return;
    }
    if (auto view = dyn_cast<memref::ViewOp>(op)) {
      views[view.getResult()] = get(view.getByteShift());
      return;
    }
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(op)) {
      int64_t offset = views.lookup(toTensor.getBuffer());
      ranges[toTensor.getResult()] = {offset,
                                      *getTensorSizeInBytes(toTensor.getType()),
                                      landing.lookup(offset)};
      return;
    }
    if (isa<func::ReturnOp>(op))
      return;
    // Compute: reads its tensor operands, then writes its results at their
    // offsets, or in place of the operand they are tied to.
    for (Value operand : op.getOperands())
      if (auto range = ranges.find(operand); range != ranges.end())
        runtime.checkRead(range->second.offset, range->second.bytes,
                          range->second.owner, where(op));
    auto offsets = op.getAttrOfType<DenseI64ArrayAttr>("ho.offsets");
    auto compute = dyn_cast<ComputeOp>(op);
    for (OpResult result : op.getResults()) {
      ArenaRange range;
      if (offsets) {
        range = {offsets[result.getResultNumber()],
                 *getTensorSizeInBytes(result.getType()), nextOwner++};
      } else if (OpOperand *tied =
                     compute ? compute.getTiedOperand(result) : nullptr) {
        range = ranges.lookup(tied->get());
      } else {
        continue;
      }
      runtime.recordWrite(range.offset, range.bytes, range.owner, where(op));
      ranges[result] = range;
    }
  }

  ThreadedRuntime &runtime;
  DenseMap<Value, int64_t> integers;
  /// memref.view results: their byte shift in the arena.
  DenseMap<Value, int64_t> views;
  DenseMap<Value, ArenaRange> ranges;
  /// Per arena offset, the buffer the last prefetch into it brings.
  DenseMap<int64_t, int64_t> landing;
  int64_t nextOwner = 100;
};

// x is device-resident at 0; the weight w is fetched into 16; relu's result
// a is stored from 32, whose bytes mul then reuses, and fetched back into
// 48 for the add, which writes where w was.
constexpr llvm::StringLiteral kPlacedStep = R"mlir(
  func.func @step(%x: tensor<4xf32> {ho.offset = 0 : i64},
                  %w: !ho.remote<tensor<4xf32>>) -> tensor<4xf32>
      attributes {ho.arena_size = 64 : i64} {
    %f = ho.prefetch %w {ho.offsets = array<i64: 16>} : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
    %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 32>} : (tensor<4xf32>) -> tensor<4xf32> loc("relu")
    %s = ho.offload %a : tensor<4xf32> -> !ho.remote<tensor<4xf32>, host>
    ho.wait_offload %s : !ho.remote<tensor<4xf32>, host>
    %wd = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
    %b = ho.compute "mul"(%x, %wd) {ho.offsets = array<i64: 32>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("mul")
    %g = ho.prefetch %s {ho.offsets = array<i64: 48>} : !ho.remote<tensor<4xf32>, host> -> !ho.future<tensor<4xf32>>
    %ad = ho.await %g : !ho.future<tensor<4xf32>> -> tensor<4xf32>
    %c = ho.compute "add"(%b, %ad) {ho.offsets = array<i64: 16>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("add")
    return %c : tensor<4xf32>
  }
)mlir";

class LoweredPlanIntegrityTest : public ::testing::Test {
protected:
  LoweredPlanIntegrityTest() {
    DialectRegistry registry;
    registerHyperOffloadDialects(registry);
    registry.insert<func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Lowers `plan` (after `edit`, if any, of its lowered body) and runs it;
  /// returns what integrity checking found.
  std::vector<std::string>
  runLowered(llvm::StringRef plan,
             llvm::function_ref<void(func::FuncOp)> edit = nullptr) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(plan, &context);
    EXPECT_TRUE(module);
    if (!module)
      return {"the plan does not parse"};
    PassManager pm(&context);
    pm.addPass(createLowerToRuntime());
    if (failed(pm.run(*module)))
      return {"the plan does not lower"};
    auto step = module->lookupSymbol<func::FuncOp>("step");
    if (edit)
      edit(step);
    ThreadedRuntime::Options options;
    options.arenaBytes = 64;
    options.copyOnlyWhenWaited = true;
    ThreadedRuntime runtime(options);
    TransferInterpreter(runtime).run(step);
    runtime.synchronize();
    return runtime.getIntegrityErrors();
  }

  MLIRContext context;
};

/// Erases the `index`-th call of `callee` in `function`.
void eraseCall(func::FuncOp function, StringRef callee, unsigned index) {
  SmallVector<func::CallOp> calls;
  function.walk([&](func::CallOp call) {
    if (call.getCallee() == callee)
      calls.push_back(call);
  });
  ASSERT_LT(index, calls.size());
  calls[index].erase();
}

TEST_F(LoweredPlanIntegrityTest, IntactPlanRunsClean) {
  EXPECT_EQ(runLowered(kPlacedStep), std::vector<std::string>());
}

TEST_F(LoweredPlanIntegrityTest, MissingAwaitIsReportedAtItsReader) {
  // The first event wait is the weight's.
  std::vector<std::string> errors = runLowered(
      kPlacedStep, [](func::FuncOp f) { eraseCall(f, "ho_event_wait", 0); });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front(), "loc(\"mul\"): reads arena bytes [16, 32) before "
                            "the prefetch into [16, 32) has landed");
}

TEST_F(LoweredPlanIntegrityTest, MissingStoreWaitIsReportedAtTheReuse) {
  std::vector<std::string> errors = runLowered(
      kPlacedStep, [](func::FuncOp f) { eraseCall(f, "ho_offload_wait", 0); });
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front(), "loc(\"mul\"): writes arena bytes [32, 48) while "
                            "the offload of [32, 48) has not completed");
}

TEST_F(LoweredPlanIntegrityTest, OverlappingOffsetIsReportedAtTheReader) {
  // relu's result placed over x, which mul reads afterwards.
  std::string plan = kPlacedStep.str();
  size_t at =
      plan.find("ho.compute \"relu\"(%x) {ho.offsets = array<i64: 32>}");
  ASSERT_NE(at, std::string::npos);
  plan.replace(plan.find("32", at), 2, "0");
  std::vector<std::string> errors = runLowered(plan);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front(), "loc(\"mul\"): reads arena bytes [0, 16) as "
                            "buffer 0, but buffer 100 has overwritten them");
}
} // namespace
