//===- InitAll.h - Register everything HyperOffload defines -----*- C++ -*-===//
//
// One place for tools and pipelines that embed HyperOffload to register its
// dialects, interfaces and passes.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_INITALL_H
#define HYPEROFFLOAD_INITALL_H

namespace mlir {
class DialectRegistry;

namespace ho {

/// Adds the `ho` dialect to `registry`.
void registerHyperOffloadDialects(DialectRegistry &registry);

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_INITALL_H
