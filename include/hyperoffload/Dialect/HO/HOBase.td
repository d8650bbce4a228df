//===- HOBase.td - HyperOffload dialect definition ---------*- tablegen -*-===//
//
// The `ho` dialect: tensors that live outside device memory and the explicit,
// asynchronous transfers that move them.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HOBASE_TD
#define HYPEROFFLOAD_DIALECT_HO_HOBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def HO_Dialect : Dialect {
  let name = "ho";
  let cppNamespace = "::mlir::ho";
  let summary = "Explicit, compiler-scheduled memory offload between device "
                "memory and slower memory tiers";
  let description = [{
    The `ho` (HyperOffload) dialect models a tensor program running on an
    accelerator whose fast memory (HBM) is too small for the whole working
    set, next to one or more large, slower memory tiers: a SuperNode's shared
    remote memory pool, host DRAM over PCIe or NVLink-C2C, or disk.

    Transfers between device memory and those tiers are ordinary operations
    in the IR, so that a compiler can plan them ahead of time and hide them
    behind compute instead of leaving a runtime to react to memory pressure:

    * `ho.offload` starts an asynchronous device-to-tier copy and yields a
      `!ho.remote` value;
    * `ho.prefetch` starts an asynchronous tier-to-device copy and yields a
      `!ho.future`;
    * `ho.await` is the only point at which compute waits for a transfer.

    `ho.compute` stands for any compute kernel of a modelled workload; it
    carries a kind, optional cost hints and optional in-place (tied) results.

    The position of an operation in its block is its issue order: a schedule
    is the block's order of operations.
  }];
  let useDefaultTypePrinterParser = 1;
  // The static memory plan's ho.offsets, ho.offset and ho.arena_size.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

def HO_MemoryTier : I32EnumAttr<"MemoryTier",
    "a memory tier outside device memory", [
      I32EnumAttrCase<"pool", 0>,
      I32EnumAttrCase<"host", 1>,
      I32EnumAttrCase<"disk", 2>
    ]> {
  let cppNamespace = "::mlir::ho";
  let genSpecializedAttr = 0;
}

class HO_Op<string mnemonic, list<Trait> traits = []>
    : Op<HO_Dialect, mnemonic, traits>;

#endif // HYPEROFFLOAD_DIALECT_HO_HOBASE_TD
