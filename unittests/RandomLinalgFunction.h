//===- RandomLinalgFunction.h - Random value-semantic functions -*- C++ -*-===//
//
// Draws random straight-line functions in linalg and tensor, in the styles
// front ends emit: shared tensor.empty and fill inits, inits read again
// later, elementwise ops over their own input, matmuls, copies, slices and
// constants, on 16x16 f32 tensors. Deterministic for a seed.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_UNITTESTS_RANDOMLINALGFUNCTION_H
#define HYPEROFFLOAD_UNITTESTS_RANDOMLINALGFUNCTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <random>
#include <string>

namespace mlir::ho::test {

constexpr llvm::StringLiteral kSquare = "tensor<16x16xf32>";
constexpr llvm::StringLiteral kHalf = "tensor<8x16xf32>";

/// A random straight-line function of 16x16 tensors.
class RandomLinalgFunction {
public:
  explicit RandomLinalgFunction(unsigned seed) : random(seed) {}

  std::string build() {
    body += "  %zero = arith.constant 0.0 : f32\n";
    square = {"%x", "%y"};
    half = {"%h"};
    unsigned numOps = 3 + random() % 10;
    for (unsigned i = 0; i < numOps; ++i)
      addOp(i);
    // Return the last value and a random earlier one, so that some inits
    // are read again at exit.
    std::string last = square.back(), other = pick(square);
    return llvm::formatv("func.func @f(%x: {0}, %y: {0}, %h: {1}) -> ({0}, "
                         "{0}) {{\n{2}  return {3}, {4} : {0}, {0}\n}\n",
                         kSquare, kHalf, body, last, other)
        .str();
  }

private:
  std::string pick(llvm::ArrayRef<std::string> values) {
    return values[random() % values.size()];
  }
  std::string fresh() { return "%v" + std::to_string(next++); }

  void addOp(unsigned index) {
    std::string value = fresh();
    auto emit = [&](llvm::StringRef text) {
      body += "  " + value + " = " + text.str() + "\n";
    };
    std::string a = pick(square), b = pick(square), init = pick(square);
    switch (random() % 9) {
    case 0:
      emit(llvm::formatv("tensor.empty() : {0}", kSquare).str());
      break;
    case 1:
      emit(llvm::formatv("linalg.fill ins(%zero : f32) outs({0} : {1}) -> {1}",
                         init, kSquare)
               .str());
      break;
    case 2:
    case 3:
      emit(llvm::formatv("linalg.add ins({0}, {1} : {3}, {3}) outs({2} : {3}) "
                         "-> {3}",
                         a, b, init, kSquare)
               .str());
      break;
    case 4:
      emit(llvm::formatv("linalg.matmul ins({0}, {1} : {3}, {3}) outs({2} : "
                         "{3}) -> {3}",
                         a, b, init, kSquare)
               .str());
      break;
    case 5:
      emit(llvm::formatv("linalg.copy ins({0} : {2}) outs({1} : {2}) -> {2}", a,
                         init, kSquare)
               .str());
      break;
    case 6:
      emit(llvm::formatv("arith.constant dense<{0}.0> : {1}", index, kSquare)
               .str());
      break;
    case 7:
      emit(llvm::formatv("tensor.extract_slice {0}[0, 0] [8, 16] [1, 1] : "
                         "{1} to {2}",
                         a, kSquare, kHalf)
               .str());
      half.push_back(value);
      return;
    case 8:
      emit(llvm::formatv("tensor.insert_slice {0} into {1}[8, 0] [8, 16] "
                         "[1, 1] : {2} into {3}",
                         pick(half), init, kHalf, kSquare)
               .str());
      break;
    }
    square.push_back(value);
  }

  std::mt19937_64 random;
  std::string body;
  llvm::SmallVector<std::string> square, half;
  unsigned next = 0;
};

} // namespace mlir::ho::test

#endif // HYPEROFFLOAD_UNITTESTS_RANDOMLINALGFUNCTION_H
