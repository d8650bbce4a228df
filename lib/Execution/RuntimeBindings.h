//===- RuntimeBindings.h - JIT-compiled plans call the threaded runtime --===//
//
// A lowered plan calls the C functions of HyperOffloadRuntime.h. The JIT
// resolves those names to functions here, which forward to the
// ThreadedRuntime of the run in progress; one run at a time per process.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_EXECUTION_RUNTIMEBINDINGS_H
#define HYPEROFFLOAD_LIB_EXECUTION_RUNTIMEBINDINGS_H

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <mutex>
#include <string>
#include <vector>

namespace mlir {
namespace ho {

/// The runtime calls' symbols, for ExecutionEngine::registerSymbols.
llvm::orc::SymbolMap getRuntimeSymbols(llvm::orc::MangleAndInterner interner);

/// While alive, the runtime calls of compiled code go to `runtime`
/// (null for a function without a plan, which makes none), and integrity
/// reports name the op by `sites`.
class RuntimeBinding {
public:
  RuntimeBinding(ThreadedRuntime *runtime,
                 const std::vector<std::string> &sites);
  ~RuntimeBinding();
  RuntimeBinding(const RuntimeBinding &) = delete;
  RuntimeBinding &operator=(const RuntimeBinding &) = delete;

private:
  std::unique_lock<std::mutex> lock;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_EXECUTION_RUNTIMEBINDINGS_H
