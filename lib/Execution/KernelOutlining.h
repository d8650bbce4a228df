//===- KernelOutlining.h - Each linalg op a kernel with its own pointers -*- C++
//-*-===//
//
// A plan puts every device buffer in one arena, so the compiled loops of an
// op see its operands as views of one allocation and cannot tell them
// apart: they are not vectorized as the same loops over separate
// allocations are (a 512x1024x1024 matmul ran 2.6x slower in the arena).
// A device runs each op as a kernel that gets its buffers as pointers the
// compiler may take to be distinct (`__restrict__`). These functions do the
// same for the JIT: each linalg op with memrefs that provably do not
// overlap moves into a function of its own, and once lowered to LLVM the
// pointers of those memrefs are `noalias` arguments (which LLVM's inliner
// keeps as alias scopes).
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_EXECUTION_KERNELOUTLINING_H
#define HYPEROFFLOAD_LIB_EXECUTION_KERNELOUTLINING_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace ho {

/// Moves every linalg op (on memrefs) of `module`'s functions that has a
/// memref no other of its memrefs can overlap into a private function,
/// called where the op was. Two memrefs cannot overlap when they are views
/// of different allocations or function arguments, or views of disjoint
/// constant byte ranges of one (the arena).
void outlineKernels(ModuleOp module);

/// After the conversion to LLVM: makes the aligned pointer of each such
/// memref a `noalias` argument of its kernel.
void markNoAliasKernelArguments(ModuleOp module);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_EXECUTION_KERNELOUTLINING_H
