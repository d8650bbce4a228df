//===- InputDialects.h - Every dialect an input file may use ----*- C++ -*-===//
//
// The tools read IR that front ends wrote: torch-mlir's linalg and
// ml_program, TOSA, IREE's inputs, StableHLO lowered to linalg, with the
// math, vector, affine, memref and cf ops that come along. They register
// every upstream dialect and extension (what stock mlir-opt knows), the ho
// dialect, and the cost models of the ops HyperOffload prices, so that any
// file mlir-opt parses, they parse too.
//
// A separate library from HyperOffloadRegistration: it links every upstream
// dialect statically, which the mlir-opt plugin (built against libMLIR.so)
// must not.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_INPUTDIALECTS_H
#define HYPEROFFLOAD_INPUTDIALECTS_H

namespace mlir {
class DialectRegistry;

namespace ho {

void registerInputDialects(DialectRegistry &registry);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_INPUTDIALECTS_H
