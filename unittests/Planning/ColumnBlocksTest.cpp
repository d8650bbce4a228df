//===- ColumnBlocksTest.cpp - Which weights split, and how, by hand -------===//

#include "ColumnBlocks.h"

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <vector>

using namespace mlir;
using namespace mlir::ho;

namespace {
class ColumnBlocksTest : public ::testing::Test {
protected:
  ColumnBlocksTest() { context.loadDialect<HODialect, func::FuncDialect>(); }

  /// Parses `ir` and splits its function into blocks of at most
  /// `maxBlockBytes`; returns whether anything was split.
  bool split(llvm::StringRef ir, int64_t maxBlockBytes) {
    module = parseSourceString<ModuleOp>(ir, &context);
    EXPECT_TRUE(module);
    if (!module)
      return false;
    function = *module->getOps<func::FuncOp>().begin();
    bool changed = splitWeightsIntoColumnBlocks(function, maxBlockBytes);
    EXPECT_TRUE(succeeded(verify(*module)));
    return changed;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
};

// A 64x96 f32 weight is 24 KiB: blocks of at most 10 KiB need three, and 3
// divides 96, so each block is 64x32 (8 KiB). Both matmuls reading it are
// split; their results are joined in column order.
TEST_F(ColumnBlocksTest, SplitsAWeightIntoTheFewestEvenBlocks) {
  EXPECT_TRUE(split(R"mlir(
    func.func @f(%x: tensor<2x64xf32>, %w: tensor<64x96xf32> {ho.role = "weight"})
        -> tensor<2x96xf32> {
      %y = ho.compute "matmul"(%x, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
      %z = ho.compute "matmul"(%x, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
      %s = ho.compute "add"(%y, %z) : (tensor<2x96xf32>, tensor<2x96xf32>) -> tensor<2x96xf32>
      return %s : tensor<2x96xf32>
    }
  )mlir",
                    10 * 1024));
  ASSERT_EQ(function.getNumArguments(), 4u);
  for (unsigned block = 0; block < 3; ++block) {
    BlockArgument arg = function.getArgument(1 + block);
    EXPECT_EQ(arg.getType(),
              RankedTensorType::get({64, 32}, Float32Type::get(&context)));
    auto columns = function.getArgAttrOfType<DenseI64ArrayAttr>(
        1 + block, kColumnBlockAttrName);
    ASSERT_TRUE(columns);
    EXPECT_EQ(columns.asArrayRef(),
              ArrayRef<int64_t>({32 * block, 32 * (block + 1)}));
    // The role stays: the blocks are weights, as the argument was.
    EXPECT_TRUE(function.getArgAttr(1 + block, "ho.role"));
    EXPECT_EQ(std::distance(arg.use_begin(), arg.use_end()), 2);
  }
  unsigned matmuls = 0, concats = 0;
  function.walk([&](ComputeOp op) {
    matmuls += op.getKind() == "matmul";
    if (op.getKind() != "concat")
      return;
    ++concats;
    ASSERT_EQ(op.getInputs().size(), 3u);
    for (auto [index, input] : llvm::enumerate(op.getInputs()))
      EXPECT_EQ(input.getDefiningOp<ComputeOp>().getInputs()[1],
                function.getArgument(1 + index));
  });
  EXPECT_EQ(matmuls, 6u);
  EXPECT_EQ(concats, 2u);
}

// 96 columns in at most 7 KiB blocks: four blocks of 6 KiB would be 24
// columns each, and 4 divides 96.
TEST_F(ColumnBlocksTest, TakesTheNextCountThatDividesTheColumns) {
  EXPECT_TRUE(split(R"mlir(
    func.func @f(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> {
      %y = ho.compute "matmul"(%x, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
      %s = ho.compute "copy"(%y) : (tensor<2x96xf32>) -> tensor<2x96xf32>
      return %s : tensor<2x96xf32>
    }
  )mlir",
                    7 * 1024));
  ASSERT_EQ(function.getNumArguments(), 5u);
  EXPECT_EQ(function.getArgument(4).getType(),
            RankedTensorType::get({64, 24}, Float32Type::get(&context)));
}

// A block split again names its columns in the weight it came from.
TEST_F(ColumnBlocksTest, ABlockSplitAgainKeepsItsColumns) {
  EXPECT_TRUE(split(R"mlir(
    func.func @f(%x: tensor<2x64xf32>,
                 %w: tensor<64x32xf32> {ho.column_block = array<i64: 64, 96>})
        -> tensor<2x32xf32> {
      %y = ho.compute "matmul"(%x, %w) : (tensor<2x64xf32>, tensor<64x32xf32>) -> tensor<2x32xf32>
      %s = ho.compute "copy"(%y) : (tensor<2x32xf32>) -> tensor<2x32xf32>
      return %s : tensor<2x32xf32>
    }
  )mlir",
                    4 * 1024));
  ASSERT_EQ(function.getNumArguments(), 3u);
  auto columns = [&](unsigned index) {
    return function
        .getArgAttrOfType<DenseI64ArrayAttr>(index, kColumnBlockAttrName)
        .asArrayRef()
        .vec();
  };
  EXPECT_EQ(columns(1), (std::vector<int64_t>{64, 80}));
  EXPECT_EQ(columns(2), (std::vector<int64_t>{80, 96}));
}

// Left alone: a weight small enough already, a weight another op reads, a
// matmul with a cost hint, and a matmul whose result only goes back to the
// caller (the time bound counts all of that one after its last fetch).
TEST_F(ColumnBlocksTest, LeavesWhatItCannotSplit) {
  EXPECT_FALSE(split(R"mlir(
    func.func @f(%x: tensor<2x64xf32>, %small: tensor<64x8xf32>,
                 %shared: tensor<64x96xf32>, %hinted: tensor<64x96xf32>,
                 %output: tensor<64x96xf32>)
        -> (tensor<2x8xf32>, tensor<64x96xf32>, tensor<2x96xf32>, tensor<2x96xf32>) {
      %a = ho.compute "matmul"(%x, %small) : (tensor<2x64xf32>, tensor<64x8xf32>) -> tensor<2x8xf32>
      %a2 = ho.compute "copy"(%a) : (tensor<2x8xf32>) -> tensor<2x8xf32>
      %b = ho.compute "matmul"(%x, %shared) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
      %b2 = ho.compute "copy"(%shared) : (tensor<64x96xf32>) -> tensor<64x96xf32>
      %c = ho.compute "matmul"(%x, %hinted) {flops = 24576 : i64}
          : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
      %c2 = ho.compute "add"(%b, %c) : (tensor<2x96xf32>, tensor<2x96xf32>) -> tensor<2x96xf32>
      %d = ho.compute "matmul"(%x, %output) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
      return %a2, %b2, %c2, %d : tensor<2x8xf32>, tensor<64x96xf32>, tensor<2x96xf32>, tensor<2x96xf32>
    }
  )mlir",
                     4 * 1024));
  EXPECT_EQ(function.getNumArguments(), 5u);
}

} // namespace
