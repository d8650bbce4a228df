//===- GraphBuilder.h - Emit a model graph as one function ------*- C++ -*-===//
//
// The builders describe a model layer by layer; GraphBuilder turns that into
// a `func.func` of `ho.compute` ops. It names every value after where it
// belongs ("layer 17 / attention / kv_cache"), tags arguments and results
// with their role, and in training mode records each forward op on a tape so
// that the backward pass can be emitted from it.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_LIB_WORKLOADS_GRAPHBUILDER_H
#define HYPEROFFLOAD_LIB_WORKLOADS_GRAPHBUILDER_H

#include "hyperoffload/Workloads/Workloads.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
namespace ho {
namespace workloads {

/// Converts an element type name into an MLIR type.
Type getElementType(MLIRContext &context, DType type);

class GraphBuilder {
public:
  GraphBuilder(MLIRContext &context, llvm::StringRef functionName,
               bool recordTape);
  ~GraphBuilder() { delete body; }
  GraphBuilder(const GraphBuilder &) = delete;
  GraphBuilder &operator=(const GraphBuilder &) = delete;

  MLIRContext &getContext() { return context; }
  RankedTensorType tensor(llvm::ArrayRef<int64_t> shape, Type elementType) {
    return RankedTensorType::get(shape, elementType);
  }

  /// Opens a naming scope: values created until the returned guard goes out
  /// of scope are named "<outer scopes> / <name> / <value name>".
  class Scope {
  public:
    Scope(GraphBuilder &builder, std::string name);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    GraphBuilder &builder;
  };
  Scope scope(std::string name) { return Scope(*this, std::move(name)); }

  /// The full name of `leaf` in the current scope, and a location with it.
  std::string qualify(llvm::StringRef leaf) const;
  Location loc(llvm::StringRef leaf);

  /// Appends a function argument holding `role` ("weight", "kv_cache", ...).
  Value argument(llvm::StringRef name, Type type, llvm::StringRef role);
  /// Appends a function result.
  void result(Value value, llvm::StringRef role);

  /// Emits `ho.compute kind(inputs) -> resultTypes` named `name`, with
  /// optional cost hints and tied results (`tied[i]` is the operand result i
  /// reuses, or -1).
  SmallVector<Value> computeN(llvm::StringRef kind, ValueRange inputs,
                              TypeRange resultTypes, llvm::StringRef name,
                              std::optional<int64_t> flops = std::nullopt,
                              std::optional<int64_t> bytes = std::nullopt,
                              llvm::ArrayRef<int64_t> tied = {});
  Value compute(llvm::StringRef kind, ValueRange inputs, Type resultType,
                llvm::StringRef name,
                std::optional<int64_t> flops = std::nullopt,
                std::optional<int64_t> bytes = std::nullopt) {
    return computeN(kind, inputs, TypeRange{resultType}, name, flops, bytes)
        .front();
  }

  /// Emits `ho.routed kind(inputs) by selection experts(experts)`: a kernel
  /// over the experts the run-time `selection` picks, this device holding
  /// global experts `firstExpert`... of `totalExperts`.
  SmallVector<Value> routed(llvm::StringRef kind, ValueRange inputs,
                            Value selection, ValueRange experts,
                            TypeRange resultTypes, llvm::StringRef name,
                            int64_t firstExpert, int64_t totalExperts);

  /// Emits `ho.gather_blocks`: the blocks of `blockSize` along `axis` of
  /// `source` that the run-time `selection` picks.
  Value gatherBlocks(Value source, Value selection, int64_t axis,
                     int64_t blockSize, llvm::StringRef name);
  /// `tensor.insert_slice` of `source` into `dest` at `offsets`, unit
  /// strides: an in-place update of part of `dest`.
  Value insertSlice(Value source, Value dest, ArrayRef<int64_t> offsets,
                    llvm::StringRef name);

  /// `ho.prefetch` and `ho.await` of a remote value; `ho.offload` of a
  /// device value to the pool.
  Value fetch(Value remote, llvm::StringRef name);
  Value store(Value value, llvm::StringRef name);

  /// Entry `index` along dimension 0 of `source`, without that dimension,
  /// as a view (tensor.extract_slice).
  Value slice(Value source, int64_t index, llvm::StringRef name);

  //===--------------------------------------------------------------------===//
  // The training tape
  //===--------------------------------------------------------------------===//

  bool isRecording() const { return recordTape; }

  /// A backward rule: given the gradient of the forward results, emits the
  /// backward ops and returns the gradient of each forward input (null where
  /// the input needs none).
  using BackwardRule =
      std::function<SmallVector<Value>(GraphBuilder &, ValueRange grads)>;

  /// Records that `outputs` were computed from `inputs` by `rule`'s inverse.
  /// The scope at recording time is restored while the rule runs.
  void record(ValueRange inputs, ValueRange outputs, BackwardRule rule);

  /// Emits the backward pass from the gradient `seed` of `loss`, in reverse
  /// order of recording, summing gradients where a value has several uses.
  /// Returns the gradient of every value that has one (weights included).
  DenseMap<Value, Value> emitBackward(Value loss, Value seed);

  /// Finishes the function and returns the module holding it.
  OwningOpRef<ModuleOp> finish();

private:
  struct TapeEntry {
    SmallVector<Value> inputs;
    SmallVector<Value> outputs;
    BackwardRule rule;
    std::vector<std::string> scopes;
  };

  MLIRContext &context;
  OwningOpRef<ModuleOp> module;
  Block *body;
  OpBuilder builder;
  std::string functionName;
  std::vector<std::string> scopes;
  SmallVector<Attribute> argumentRoles;
  SmallVector<Value> results;
  SmallVector<Attribute> resultRoles;
  bool recordTape;
  std::vector<TapeEntry> tape;
};

/// Elements and bytes of a static tensor type.
int64_t numElements(Type type);
int64_t sizeInBytes(Type type);

} // namespace workloads
} // namespace ho
} // namespace mlir

#endif // HYPEROFFLOAD_LIB_WORKLOADS_GRAPHBUILDER_H
