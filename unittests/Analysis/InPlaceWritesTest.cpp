//===- InPlaceWritesTest.cpp - Buffers as one-shot bufferization makes them
//===//
//
// Draws random value-semantic functions in linalg and tensor (shared
// tensor.empty and fill inits, inits read again later, elementwise ops over
// their own input, matmuls, copies, slices, constants), bufferizes a copy of
// each with --one-shot-bufferize, and checks that BufferLiveness finds as
// many buffers as bufferization allocates and the same peak of live bytes.
//
// In the bufferized function a buffer is live from its memref.alloc to the
// last use of it or of a view of it; the function's arguments and the
// globals of its constants throughout.
//
// HO_INPLACE_SEED=<n> runs only seed n and prints its input.
//
//===----------------------------------------------------------------------===//

#include "RandomLinalgFunction.h"
#include "hyperoffload/Analysis/BufferLiveness.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <iostream>

using namespace mlir;
using namespace mlir::ho;
using mlir::ho::test::RandomLinalgFunction;

namespace {
constexpr unsigned kNumSeeds = 1000;

/// Buffers and peak of live bytes of a bufferized function.
struct Allocations {
  unsigned count = 0;
  int64_t peak = 0;
};

static int64_t getMemRefBytes(Value value) {
  auto type = cast<MemRefType>(value.getType());
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

static Allocations measure(func::FuncOp function) {
  Block &body = function.getBody().front();
  DenseMap<Operation *, unsigned> pointOf;
  for (Operation &op : body)
    pointOf[&op] = pointOf.size() + 1;
  unsigned exit = pointOf.size() + 1;

  // The last point at which `root` or a view of it is used.
  auto lastUse = [&](Value root) {
    unsigned last = 0;
    SmallVector<Value> pending{root};
    while (!pending.empty()) {
      Value value = pending.pop_back_val();
      for (Operation *user : value.getUsers()) {
        last = std::max(last, user->hasTrait<OpTrait::ReturnLike>()
                                  ? exit
                                  : pointOf.lookup(user));
        if (auto view = dyn_cast<ViewLikeOpInterface>(user))
          if (view.getViewSource() == value)
            llvm::append_range(pending, user->getResults());
      }
    }
    return last;
  };

  Allocations allocations;
  SmallVector<int64_t> delta(exit + 2, 0);
  auto add = [&](Value buffer, unsigned from, unsigned to) {
    delta[from] += getMemRefBytes(buffer);
    delta[std::max(from, to) + 1] -= getMemRefBytes(buffer);
  };
  for (BlockArgument arg : body.getArguments())
    add(arg, 0, exit);
  for (Operation &op : body) {
    if (isa<memref::AllocOp>(op))
      ++allocations.count;
    if (isa<memref::AllocOp>(op))
      add(op.getResult(0), pointOf.lookup(&op), lastUse(op.getResult(0)));
    if (isa<memref::GetGlobalOp>(op))
      add(op.getResult(0), 0, exit);
  }
  int64_t live = 0;
  for (int64_t change : delta)
    allocations.peak = std::max(allocations.peak, live += change);
  return allocations;
}

class InPlaceWritesTest : public ::testing::Test {
protected:
  InPlaceWritesTest() {
    DialectRegistry registry;
    arith::registerBufferizableOpInterfaceExternalModels(registry);
    bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
        registry);
    linalg::registerBufferizableOpInterfaceExternalModels(registry);
    tensor::registerBufferizableOpInterfaceExternalModels(registry);
    context.appendDialectRegistry(registry);
    context
        .loadDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                     func::FuncDialect, linalg::LinalgDialect,
                     memref::MemRefDialect, tensor::TensorDialect>();
  }

  /// Checks one function; returns whether bufferization and the analysis
  /// agree.
  bool check(const std::string &ir, bool print) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module) << ir;
    if (!module)
      return false;
    Block &body = (*module->getOps<func::FuncOp>().begin()).getBody().front();
    BufferLiveness liveness(body);
    unsigned buffers = 0;
    for (const BufferInfo &buffer : liveness.getBuffers())
      buffers += !buffer.isArgument() && !isReadOnlyValue(buffer.root);

    OwningOpRef<ModuleOp> bufferized = module->clone();
    bufferization::OneShotBufferizePassOptions options;
    options.bufferizeFunctionBoundaries = true;
    PassManager pm(&context);
    pm.addPass(bufferization::createOneShotBufferizePass(options));
    EXPECT_TRUE(succeeded(pm.run(*bufferized))) << ir;
    Allocations allocations =
        measure(*bufferized->getOps<func::FuncOp>().begin());
    if (print) {
      llvm::outs() << ir << "\nbufferized:\n"
                   << *bufferized << "\nanalysis: " << buffers
                   << " buffers, peak " << liveness.getPeakBytes() << "\n";
      llvm::outs().flush();
    }
    EXPECT_EQ(buffers, allocations.count) << ir;
    EXPECT_EQ(liveness.getPeakBytes(), allocations.peak) << ir;
    return buffers == allocations.count &&
           liveness.getPeakBytes() == allocations.peak;
  }

  MLIRContext context;
};

TEST_F(InPlaceWritesTest, BuffersAndPeakMatchOneShotBufferization) {
  if (const char *seed = std::getenv("HO_INPLACE_SEED")) {
    check(RandomLinalgFunction(std::atoi(seed)).build(), /*print=*/true);
    return;
  }
  unsigned failures = 0;
  for (unsigned seed = 0; seed < kNumSeeds && failures < 3; ++seed)
    if (!check(RandomLinalgFunction(seed).build(), /*print=*/false)) {
      ++failures;
      std::cout << "seed " << seed << " differs\n";
    }
}
} // namespace
