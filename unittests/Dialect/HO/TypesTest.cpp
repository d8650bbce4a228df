//===- TypesTest.cpp - Tests of the ho dialect types ----------------------===//

#include "hyperoffload/Dialect/HO/HODialect.h"
#include "hyperoffload/Dialect/HO/HOTypes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
class HOTypesTest : public ::testing::Test {
protected:
  HOTypesTest() { context.loadDialect<HODialect>(); }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elementType) {
    return RankedTensorType::get(shape, elementType);
  }

  /// Prints `type` the way the IR printer does.
  static std::string print(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  }

  MLIRContext context;
  Builder b{&context};
};

TEST_F(HOTypesTest, RemoteDefaultsToThePoolTierAndElidesIt) {
  auto remote = RemoteType::get(tensor({4, 8}, b.getBF16Type()));
  EXPECT_EQ(remote.getTier(), MemoryTier::pool);
  EXPECT_EQ(remote.getTensorType(), tensor({4, 8}, b.getBF16Type()));
  EXPECT_EQ(print(remote), "!ho.remote<tensor<4x8xbf16>>");
}

TEST_F(HOTypesTest, RemotePrintsNonDefaultTiers) {
  auto t = tensor({2}, b.getF32Type());
  EXPECT_EQ(print(RemoteType::get(t, MemoryTier::host)),
            "!ho.remote<tensor<2xf32>, host>");
  EXPECT_EQ(print(RemoteType::get(t, MemoryTier::disk)),
            "!ho.remote<tensor<2xf32>, disk>");
  EXPECT_NE(RemoteType::get(t, MemoryTier::host),
            RemoteType::get(t, MemoryTier::pool));
}

TEST_F(HOTypesTest, ParsesWhatItPrints) {
  for (StringRef text :
       {"!ho.remote<tensor<4x8xbf16>>", "!ho.remote<tensor<1xi8>, disk>",
        "!ho.future<tensor<16x16xf8E4M3FN>>"}) {
    Type parsed = parseType(text, &context);
    ASSERT_TRUE(parsed) << text.str();
    EXPECT_EQ(print(parsed), text.str());
  }
  // `pool` is the default, so spelling it out gives the same type.
  EXPECT_EQ(parseType("!ho.remote<tensor<4xf32>, pool>", &context),
            parseType("!ho.remote<tensor<4xf32>>", &context));
}

TEST_F(HOTypesTest, SizeInBytesRoundsSubByteElementsUp) {
  EXPECT_EQ(RemoteType::get(tensor({4, 8}, b.getBF16Type())).getSizeInBytes(),
            64);
  EXPECT_EQ(FutureType::get(tensor({1024}, b.getF32Type())).getSizeInBytes(),
            4096);
  // 3 x 4 bits = 12 bits, stored in 2 bytes.
  EXPECT_EQ(RemoteType::get(tensor({3}, b.getIntegerType(4))).getSizeInBytes(),
            2);
  EXPECT_EQ(RemoteType::get(tensor({}, b.getI1Type())).getSizeInBytes(), 1);
}

TEST_F(HOTypesTest, RejectsTensorsOfUnknownSize) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto loc = UnknownLoc::get(&context);
  auto emitLocError = [&] { return mlir::emitError(loc); };

  TensorType dynamic = tensor({ShapedType::kDynamic, 8}, b.getF32Type());
  EXPECT_FALSE(RemoteType::getChecked(emitLocError, dynamic, MemoryTier::pool));
  EXPECT_EQ(message, "!ho.remote needs a statically shaped tensor, but got "
                     "'tensor<?x8xf32>': the size of the copy must be known");

  TensorType unranked = UnrankedTensorType::get(b.getF32Type());
  EXPECT_FALSE(FutureType::getChecked(emitLocError, unranked));
  EXPECT_EQ(message, "!ho.future needs a ranked tensor, but got "
                     "'tensor<*xf32>': the size of the copy must be known");

  TensorType opaque = tensor({4}, NoneType::get(&context));
  EXPECT_FALSE(FutureType::getChecked(emitLocError, opaque));
  EXPECT_EQ(message,
            "!ho.future needs an element type of fixed width, but got 'none'");
}
} // namespace
