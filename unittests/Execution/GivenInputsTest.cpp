//===- GivenInputsTest.cpp - Arguments given as bytes instead of drawn ----===//
//
// `run --input N=FILE` puts a file's bytes in place of a generated argument;
// each way a given input cannot stand for its argument is refused with a
// message that names the input.
//
//===----------------------------------------------------------------------===//

#include "hyperoffload/Execution/PlanExecution.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ho;

namespace {
class GivenInputsTest : public ::testing::Test {
protected:
  GivenInputsTest() {
    Builder builder(&context);
    ValueSlot vector;
    vector.type = RankedTensorType::get({4}, builder.getF32Type());
    vector.bytes = 16;
    ValueSlot constant = vector;
    constant.constant.assign(16, 7);
    slots = {vector, constant};
  }

  /// The message of useGivenInputs with `given`, empty on success.
  std::string refusal(const std::map<unsigned, GivenInput> &given) {
    inputs = makeInputs(slots, /*seed=*/1);
    llvm::Error error = useGivenInputs(slots, given, inputs);
    return error ? llvm::toString(std::move(error)) : std::string();
  }

  MLIRContext context;
  std::vector<ValueSlot> slots;
  std::vector<std::vector<int8_t>> inputs;
};
} // namespace

TEST_F(GivenInputsTest, GivenBytesReplaceTheDrawnOnes) {
  std::vector<int8_t> bytes(16, 3);
  EXPECT_EQ(refusal({{0, {"x.bin", bytes}}}), "");
  EXPECT_EQ(inputs[0], bytes);
  EXPECT_EQ(inputs[1], slots[1].constant);
}

TEST_F(GivenInputsTest, EachMismatchNamesTheInput) {
  std::vector<int8_t> bytes(16, 3);
  EXPECT_EQ(refusal({{2, {"x.bin", bytes}}}),
            "input 'x.bin': the function has 2 arguments, so no argument 2");
  EXPECT_EQ(refusal({{1, {"c.bin", bytes}}}),
            "input 'c.bin': argument 1 is a constant of the program, not an "
            "input");
  EXPECT_EQ(refusal({{0, {"short.bin", std::vector<int8_t>(15)}}}),
            "input 'short.bin': argument 0 (tensor<4xf32>) takes 16 bytes, "
            "the input has 15");
}
