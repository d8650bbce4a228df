//===- HOTypes.td - HyperOffload dialect types -------------*- tablegen -*-===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HOTYPES_TD
#define HYPEROFFLOAD_DIALECT_HO_HOTYPES_TD

include "hyperoffload/Dialect/HO/HOBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class HO_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<HO_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def HO_MemoryTierParameter : EnumParameter<HO_MemoryTier> {
  let defaultValue = "::mlir::ho::MemoryTier::pool";
}

def HO_RemoteType : HO_Type<"Remote", "remote"> {
  let summary = "a tensor whose bytes live in a memory tier outside the device";
  let description = [{
    A value of this type is a tensor that has been moved off the device (or
    was never on it). Compute cannot read it directly: it must first be
    brought back with `ho.prefetch` and `ho.await`. It occupies no device
    memory.

    The tier says where the bytes live: `pool` (a SuperNode's shared remote
    memory pool, the default and elided when printed), `host` (host DRAM) or
    `disk`. The tensor must have a static shape, because the size of the copy
    must be known ahead of time.

    Example:

    ```mlir
    // 64 KiB of bf16 activations in the remote pool.
    !ho.remote<tensor<128x256xbf16>>
    // Optimizer state kept in host DRAM.
    !ho.remote<tensor<4096x4096xf32>, host>
    ```
  }];
  let parameters = (ins "::mlir::TensorType":$tensorType,
                        HO_MemoryTierParameter:$tier);
  let assemblyFormat = "`<` $tensorType (`,` $tier^)? `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::TensorType":$tensorType,
        CArg<"::mlir::ho::MemoryTier", "::mlir::ho::MemoryTier::pool">:$tier), [{
      return $_get(tensorType.getContext(), tensorType, tier);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of bytes this tensor occupies in its tier.
    int64_t getSizeInBytes() const;
  }];
}

def HO_FutureType : HO_Type<"Future", "future"> {
  let summary = "a transfer to the device that is in flight";
  let description = [{
    The result of `ho.prefetch`: a tensor on its way to device memory. Its
    device buffer is allocated when the prefetch is issued; the data may be
    read only through the `ho.await` that consumes the future.

    Example:

    ```mlir
    !ho.future<tensor<128x256xbf16>>
    ```
  }];
  let parameters = (ins "::mlir::TensorType":$tensorType);
  let assemblyFormat = "`<` $tensorType `>`";
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::TensorType":$tensorType), [{
      return $_get(tensorType.getContext(), tensorType);
    }]>
  ];
  let skipDefaultBuilders = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of bytes the transfer moves.
    int64_t getSizeInBytes() const;
  }];
}

#endif // HYPEROFFLOAD_DIALECT_HO_HOTYPES_TD
