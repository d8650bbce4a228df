//===- JitFunction.h - A function lowered to LLVM and JIT-compiled -*- C++ -*-//
//
// Runs a function of linalg (or any dialect MLIR lowers to LLVM) on this
// machine: bufferized, lowered to LLVM and compiled by MLIR's
// ExecutionEngine. A planned function (one with `ho.arena_size`) is lowered
// through ho-lower-to-runtime and ho-place-in-arena first, so that its
// buffers live at the static plan's offsets in one arena and its transfer
// calls run on a ThreadedRuntime.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_EXECUTION_JITFUNCTION_H
#define HYPEROFFLOAD_EXECUTION_JITFUNCTION_H

#include "hyperoffload/Runtime/ThreadedRuntime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class ExecutionEngine;

namespace ho {

/// Registers what lowering a function to LLVM needs: the dialects of the
/// lowering, bufferization models and the LLVM IR translations.
void registerExecutionDialects(DialectRegistry &registry);

/// How the caller passes one argument or gets one result.
struct ValueSlot {
  enum class Kind {
    /// A buffer of its own, passed as a memref.
    Buffer,
    /// A device-resident argument of a plan: the caller puts its bytes in
    /// the arena at `offset` (and passes the buffer too).
    Arena,
    /// A copy in tier `tier`, passed as a runtime handle.
    Remote,
  };
  Kind kind = Kind::Buffer;
  RankedTensorType type;
  int64_t bytes = 0;
  int64_t offset = 0;
  int32_t tier = 0;
  /// A remote argument that is the caller's tier copy of an earlier one
  /// (`ho.tier_copy_of`): its number; -1 otherwise. It takes the same bytes.
  int64_t copyOf = -1;
  /// An argument made from a constant (`ho.constant`, by
  /// ho-constants-as-arguments): the bytes the caller passes; empty
  /// otherwise.
  std::vector<int8_t> constant;
};

class JitFunction {
public:
  struct Options {
    /// Planned functions: report every arena read and write to the
    /// runtime (ho-place-in-arena{check-integrity}).
    bool checkIntegrity = true;
    /// Planned functions: called on the module once the plan is lowered to
    /// runtime calls and placed in the arena, before bufferization (to look
    /// at it, or to break a plan on purpose in a test).
    std::function<void(ModuleOp)> editLowered;
    /// LLVM's optimization level for the compiled code (0 to 3).
    unsigned optLevel = 3;
    /// Abstract compute: each synthetic kernel takes at least this many
    /// times its modelled time on `hw` (0: the time of its loops), as
    /// ho-synthesize-kernels{time-scale} does.
    double computeTimeScale = 0;
    std::string hw;
    std::vector<std::string> hwOverrides;
  };

  /// Lowers `function` of `module` (which it changes) and compiles it.
  /// Emits an error at the op that cannot be lowered or run and fails.
  static FailureOr<std::unique_ptr<JitFunction>>
  compile(ModuleOp module, StringRef function, const Options &options);
  ~JitFunction();

  ArrayRef<ValueSlot> getArguments() const { return arguments; }
  ArrayRef<ValueSlot> getResults() const { return results; }
  /// The plan's arena size; 0 for a function without a plan.
  int64_t getArenaBytes() const { return arenaBytes; }
  bool isPlanned() const { return arenaBytes > 0; }

  /// Runs the function once on `inputs` (the bytes of each argument, row
  /// major) and returns the bytes of each result. A planned function needs
  /// `runtime`, whose arena it uses; the call returns once every transfer
  /// has completed. Fails when the compiled code cannot be called (a
  /// symbol it needs is missing).
  llvm::Expected<std::vector<std::vector<int8_t>>>
  run(ArrayRef<std::vector<int8_t>> inputs, ThreadedRuntime *runtime) const;

private:
  JitFunction() = default;

  std::unique_ptr<ExecutionEngine> engine;
  std::string name;
  SmallVector<ValueSlot> arguments;
  SmallVector<ValueSlot> results;
  int64_t arenaBytes = 0;
  /// Whether the compiled function takes the arena as a last argument.
  bool takesArena = false;
  /// The locations ho.integrity_sites lists, by site number.
  std::vector<std::string> sites;
};

} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_EXECUTION_JITFUNCTION_H
