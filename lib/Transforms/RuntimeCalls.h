//===- RuntimeCalls.h - Declarations of the C runtime's functions -*- C++ -*-//
//
// ho-lower-to-runtime and ho-place-in-arena call the functions of
// include/hyperoffload/Runtime/HyperOffloadRuntime.h, and
// ho-synthesize-kernels a clock (names in RuntimeSymbols.h); each is
// declared once per module, as a private func.func.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_TRANSFORMS_RUNTIMECALLS_H
#define HYPEROFFLOAD_LIB_TRANSFORMS_RUNTIMECALLS_H

#include "hyperoffload/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace ho {

/// The declaration of the runtime function `name` in `module`, made at the
/// top of the module the first time.
inline func::FuncOp declareRuntimeFunction(ModuleOp module, OpBuilder &builder,
                                           StringRef name, TypeRange inputs,
                                           TypeRange results) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  auto declaration = func::FuncOp::create(
      builder, module.getLoc(), name, builder.getFunctionType(inputs, results));
  declaration.setPrivate();
  return declaration;
}

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_TRANSFORMS_RUNTIMECALLS_H
