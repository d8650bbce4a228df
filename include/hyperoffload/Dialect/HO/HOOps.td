//===- HOOps.td - HyperOffload dialect operations ----------*- tablegen -*-===//

#ifndef HYPEROFFLOAD_DIALECT_HO_HOOPS_TD
#define HYPEROFFLOAD_DIALECT_HO_HOOPS_TD

include "hyperoffload/Dialect/HO/HOBase.td"
include "hyperoffload/Dialect/HO/HOTypes.td"
include "hyperoffload/Interfaces/CostOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def HO_AnyRemote : Type<CPred<"::llvm::isa<::mlir::ho::RemoteType>($_self)">,
                        "remote tensor", "::mlir::ho::RemoteType">;
def HO_AnyFuture : Type<CPred<"::llvm::isa<::mlir::ho::FutureType>($_self)">,
                        "future tensor", "::mlir::ho::FutureType">;

// Transfers are ordered on the device's transfer queues: generic passes must
// neither drop nor reorder them, because their position is the schedule.
def HO_TransferQueueResource
    : Resource<"::mlir::ho::TransferQueueResource">;

//===----------------------------------------------------------------------===//
// ho.compute
//===----------------------------------------------------------------------===//

def HO_ComputeOp : HO_Op<"compute", [
    Pure,
    DeclareOpInterfaceMethods<HO_CostOpInterface,
        ["getFlopCount", "getBytesAccessed"]>]> {
  let summary = "a compute kernel of a modelled workload";
  let description = [{
    Stands for one kernel launch: a matmul, an attention block, a norm, a
    collective. The `kind` names it; analyses use the kind and the tensor
    shapes to estimate its cost unless cost hints say otherwise.

    Cost hints (both optional, non-negative):
    * `flops`: arithmetic operations executed;
    * `bytes`: bytes of device memory read and written.

    In-place updates: `tied_operands` has one entry per result. Entry `i`
    holds the index of the operand whose buffer result `i` reuses, or -1 when
    result `i` gets a fresh buffer. A tied result has the type of its operand,
    and an operand is reused by at most one result. A KV-cache append, for
    example, returns the updated cache in the buffer of the old one.

    Example:

    ```mlir
    %y = ho.compute "matmul"(%x, %w) {flops = 16777216 : i64}
        : (tensor<64x512xbf16>, tensor<512x256xbf16>) -> tensor<64x256xbf16>

    // Result 0 updates the cache (operand 0) in place.
    %cache2 = ho.compute "kv_append"(%cache, %kv)
        {tied_operands = array<i64: 0>}
        : (tensor<4096x128xbf16>, tensor<1x128xbf16>) -> tensor<4096x128xbf16>
    ```
  }];

  let arguments = (ins StrAttr:$kind,
                       Variadic<AnyTensor>:$inputs,
                       OptionalAttr<I64Attr>:$flops,
                       OptionalAttr<I64Attr>:$bytes,
                       OptionalAttr<DenseI64ArrayAttr>:$tied_operands);
  let results = (outs Variadic<AnyTensor>:$outputs);

  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
  }];

  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::llvm::StringRef":$kind,
                   "::mlir::ValueRange":$inputs), [{
      build($_builder, $_state, resultTypes, kind, inputs,
            /*flops=*/nullptr, /*bytes=*/nullptr, /*tied_operands=*/nullptr);
    }]>
  ];

  let extraClassDeclaration = [{
    /// Marks the result `tied_operands` entry meaning "not tied".
    static constexpr int64_t kUntied = -1;

    /// Returns the operand whose buffer `result` reuses, or null when the
    /// result gets a buffer of its own.
    ::mlir::OpOperand *getTiedOperand(::mlir::OpResult result);
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ho.routed
//===----------------------------------------------------------------------===//

def HO_RoutedOp : HO_Op<"routed", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<HO_CostOpInterface,
        ["getFlopCount", "getBytesAccessed"]>]> {
  let summary = "a kernel over the experts a run-time selection picks";
  let description = [{
    A mixture-of-experts layer: every token of `$inputs` goes through the
    experts its router picked, and only the run knows which. `$selection`
    holds the router's picks, `[..., top]` global expert ids per token
    (integers); the op reads at most as many of its `$experts` as there are
    picks, and the compiler cannot tell which ones.

    `$experts` are this device's experts, global ids `first_expert`,
    `first_expert + 1`, ... of `total_experts`; every one has the same
    tensor type. An expert is either a device tensor (resident: read in
    place when picked) or `!ho.remote` (kept in a tier). The selected remote
    experts are read from `$staged`, the slots a `ho.prefetch_routed` filled
    (awaited): one slot per expert it could have to hold, `[slots, expert
    shape...]`. When those slots were filled from a prediction, a picked
    expert that is not among them is fetched by the runtime into the slot
    of one that was not picked before the kernel runs, and compute waits
    for it.

    Cost: one token through one expert takes 2 FLOPs per expert weight
    element; the kernel reads each picked expert once, and its inputs,
    selection and results. The cost interface gives the expectation under
    uniform routing, as a compiler must assume; the simulator uses the picks
    of the run.

    Example (4 of 256 experts on this device, 2 tokens, top-8):

    ```mlir
    %f = ho.prefetch_routed %ids : tensor<2x8xi32>
        experts(%e2, %e3 : !ho.remote<tensor<3x64x32xbf16>>,
                           !ho.remote<tensor<3x64x32xbf16>>)
        {expert_ids = array<i64: 2, 3>, total_experts = 256 : i64}
        -> !ho.future<tensor<2x3x64x32xbf16>>
    %slots = ho.await %f : !ho.future<tensor<2x3x64x32xbf16>>
        -> tensor<2x3x64x32xbf16>
    %y = ho.routed "expert_ffn"(%x : tensor<2x64xbf16>) by %ids : tensor<2x8xi32>
        experts(%e0, %e1, %e2, %e3 : tensor<3x64x32xbf16>, tensor<3x64x32xbf16>,
                !ho.remote<tensor<3x64x32xbf16>>, !ho.remote<tensor<3x64x32xbf16>>)
        staged(%slots : tensor<2x3x64x32xbf16>)
        {first_expert = 0 : i64, total_experts = 256 : i64} -> tensor<2x64xbf16>
    ```
  }];

  let arguments = (ins StrAttr:$kind,
                       Variadic<AnyTensor>:$inputs,
                       AnyRankedTensor:$selection,
                       Variadic<AnyType>:$experts,
                       Optional<AnyRankedTensor>:$staged,
                       I64Attr:$first_expert,
                       I64Attr:$total_experts);
  let results = (outs Variadic<AnyTensor>:$outputs);

  let assemblyFormat = [{
    $kind `(` $inputs `:` type($inputs) `)` `by` $selection `:`
    type($selection) `experts` `(` $experts `:` qualified(type($experts)) `)`
    (`staged` `(` $staged^ `:` type($staged) `)`)? attr-dict `->`
    type($outputs)
  }];

  let extraClassDeclaration = [{
    /// The expert tensor type (the device side of a remote expert).
    ::mlir::RankedTensorType getExpertType();
    /// Tokens routed, and the experts each picks.
    int64_t getNumTokens();
    int64_t getTopK();
    /// Which expert operand `operandNumber` is, if it is one.
    std::optional<unsigned> getExpertPosition(unsigned operandNumber);
    unsigned getNumRemoteExperts();
    /// FLOPs of `assignments` tokens through an expert, and bytes read and
    /// written when `selected` experts are picked.
    int64_t getFlopsFor(double assignments);
    int64_t getBytesFor(double selected);
  }];

  let hasVerifier = 1;
}

def HO_PrefetchRoutedOp : HO_Op<"prefetch_routed", [
    MemoryEffects<[MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "start copying the experts a selection picks to the device";
  let description = [{
    A `ho.prefetch` of the experts `$selection` picks among `$experts`
    (remote, of one tensor type, with the global ids `expert_ids` of
    `total_experts`): it allocates one slot per expert that could be picked
    (`[slots, expert shape...]`, slots = min(experts, picks)), issues the
    copies of the picked ones once `$selection` is known, and returns a
    future that `ho.await` resolves. The runtime reads the ids, so only the
    picked experts move.

    The selection is either the router's output of the `ho.routed` op that
    reads the slots (the copies start after the router: exact, but exposed
    unless compute covers them), or an earlier prediction of it (a gate
    applied to an earlier layer's hidden state, as Pre-gated MoE and ProMoE
    do): earlier, but a wrong prediction leaves a miss that the routed op
    fetches itself.

    Lowering: the runtime waits for `$selection` on the compute stream,
    then issues one copy per picked expert, from that expert's tier address
    into the next free slot.
  }];

  let arguments = (ins AnyRankedTensor:$selection,
                       Variadic<HO_AnyRemote>:$experts,
                       DenseI64ArrayAttr:$expert_ids,
                       I64Attr:$total_experts);
  let results = (outs HO_AnyFuture:$result);
  let assemblyFormat = [{
    $selection `:` type($selection) `experts` `(` $experts `:`
    qualified(type($experts)) `)` attr-dict `->` qualified(type($result))
  }];
  let extraClassDeclaration = [{
    int64_t getNumSlots();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Selected blocks
//===----------------------------------------------------------------------===//

def HO_GatherBlocksOp : HO_Op<"gather_blocks", [Pure]> {
  let summary = "the blocks of a tensor that a run-time selection picks";
  let description = [{
    Block-sparse attention (Native Sparse Attention's selected branch)
    reads a few blocks of a long KV cache, chosen at run time by a score
    over the compressed cache: only the run knows which. `$source` is cut
    along `axis` into blocks of `block_size` (the last one may be short);
    `$selection` holds, per row (the dimensions of `$source` before
    `axis`), `k` distinct block indices, `[rows..., k]`. The result holds
    the picked blocks of each row side by side: `$source`'s shape with
    `k * block_size` along `axis`.

    `$source` is either a device tensor (the op is a gather on the device)
    or `!ho.remote` (the cache stays in a tier): then the blocks are read
    from `$staged`, the awaited result of a `ho.prefetch_blocks` of the
    same source, and a picked block it lacks (the prefetch was issued on a
    prediction) is fetched by the runtime before the op runs, while
    compute waits.

    Cost: none of its own. The gather stands for the loads by index of the
    kernel that reads its result (NSA's selected-branch kernel reads the
    blocks where they are), whose cost counts the picked blocks once; only
    the missed blocks of a prediction cost a copy.

    Example (3 sequences of a 4096-token cache, 16 blocks of 64 each):

    ```mlir
    %blocks = ho.gather_blocks %cache[%sel] {axis = 2 : i64, block_size = 64 : i64}
        : tensor<3x1x4096x576xbf16>, tensor<3x1x16xi32> -> tensor<3x1x1024x576xbf16>
    %f = ho.prefetch_blocks %remote[%sel] {axis = 2 : i64, block_size = 64 : i64}
        : !ho.remote<tensor<3x1x4096x576xbf16>>, tensor<3x1x16xi32>
        -> !ho.future<tensor<3x1x1024x576xbf16>>
    %staged = ho.await %f : !ho.future<tensor<3x1x1024x576xbf16>>
        -> tensor<3x1x1024x576xbf16>
    %same = ho.gather_blocks %remote[%sel] staged(%staged : tensor<3x1x1024x576xbf16>)
        {axis = 2 : i64, block_size = 64 : i64}
        : !ho.remote<tensor<3x1x4096x576xbf16>>, tensor<3x1x16xi32>
        -> tensor<3x1x1024x576xbf16>
    ```
  }];

  let arguments = (ins AnyType:$source,
                       AnyRankedTensor:$selection,
                       Optional<AnyRankedTensor>:$staged,
                       I64Attr:$axis,
                       I64Attr:$block_size);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $source `[` $selection `]` (`staged` `(` $staged^ `:` type($staged) `)`)?
    attr-dict `:` qualified(type($source)) `,` type($selection) `->`
    type($result)
  }];
  let extraClassDeclaration = [{
    /// Blocks of the source per row, rows, and blocks picked per row.
    int64_t getNumBlocks();
    int64_t getNumRows();
    int64_t getBlocksPerRow();
    /// Bytes of one block of one row.
    int64_t getBlockBytes();
  }];
  let hasVerifier = 1;
}

def HO_PrefetchBlocksOp : HO_Op<"prefetch_blocks", [
    MemoryEffects<[MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "start copying the blocks a selection picks to the device";
  let description = [{
    A `ho.prefetch` of the blocks of a remote `$source` that `$selection`
    picks (the layout of `ho.gather_blocks`): it allocates the gathered
    tensor, issues one gathering copy per row block list once `$selection`
    is known, and returns a future that `ho.await` resolves.

    The selection is either the one the `ho.gather_blocks` reading the
    result uses (exact: the copy starts after the selection op, exposed
    unless compute covers it) or an earlier one standing in for it, such as
    the previous layer's (a prediction: a picked block it missed is fetched
    by the gather).

    Lowering: the runtime waits for `$selection` on the compute stream,
    then copies each picked block from the source's tier address into its
    place in the result.
  }];

  let arguments = (ins HO_AnyRemote:$source,
                       AnyRankedTensor:$selection,
                       I64Attr:$axis,
                       I64Attr:$block_size);
  let results = (outs HO_AnyFuture:$result);
  let assemblyFormat = [{
    $source `[` $selection `]` attr-dict `:` qualified(type($source)) `,`
    type($selection) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def HO_OffloadSliceOp : HO_Op<"offload_slice", [
    AllTypesMatch<["dest", "result"]>,
    MemoryEffects<[MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "start storing a device tensor into a slice of a remote one";
  let description = [{
    An in-place update of a tensor kept in a tier, such as a KV cache that
    a decode step appends to: `tensor.insert_slice` of `$source` into
    `$dest` at the static `offsets` (unit strides), where `$dest` lives in
    its tier. Only the written slice moves (the dirty blocks), on a
    transfer queue; compute does not wait. The result is the updated remote
    tensor; the device buffer of `$source` is released once the copy has
    completed and it has no later use.

    Example (one new token of 3 sequences into row 4095 of their caches):

    ```mlir
    %next = ho.offload_slice %row into %cache[0, 0, 4095, 0]
        : tensor<3x1x1x576xbf16> into !ho.remote<tensor<3x1x4096x576xbf16>>
    ```
  }];

  let arguments = (ins AnyRankedTensor:$source,
                       HO_AnyRemote:$dest,
                       DenseI64ArrayAttr:$offsets);
  let results = (outs HO_AnyRemote:$result);
  let assemblyFormat = [{
    $source `into` $dest $offsets attr-dict `:` type($source) `into`
    qualified(type($dest))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

def HO_OffloadOp : HO_Op<"offload", [
    MemoryEffects<[MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "start an asynchronous copy from the device to a memory tier";
  let description = [{
    The paper's Store. Issues a device-to-tier copy on a transfer queue and
    returns immediately; compute does not wait for it. The device buffer of
    `$source` is released once the copy has completed and the device value
    has no later use (the paper's Detach follows from SSA liveness).

    The tier comes from the result type.

    Example:

    ```mlir
    %r = ho.offload %act : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>>
    %h = ho.offload %m : tensor<512x512xf32> -> !ho.remote<tensor<512x512xf32>, host>
    ```
  }];

  let arguments = (ins AnyTensor:$source);
  let results = (outs HO_AnyRemote:$result);
  let assemblyFormat = [{
    $source attr-dict `:` type($source) `->` qualified(type($result))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$source, "::mlir::ho::MemoryTier":$tier)>
  ];
  let hasVerifier = 1;
}

def HO_PrefetchOp : HO_Op<"prefetch", [
    MemoryEffects<[MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "start an asynchronous copy from a memory tier to the device";
  let description = [{
    The paper's Prefetch (or Load). Allocates a device buffer, issues a
    tier-to-device copy into it on a transfer queue and returns a future at
    once. The data becomes readable through the `ho.await` of that future.

    Example:

    ```mlir
    %f = ho.prefetch %r : !ho.remote<tensor<64x512xbf16>> -> !ho.future<tensor<64x512xbf16>>
    ```
  }];

  let arguments = (ins HO_AnyRemote:$source);
  let results = (outs HO_AnyFuture:$result);
  let assemblyFormat = [{
    $source attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$source)>];
  let hasVerifier = 1;
}

def HO_AwaitOp : HO_Op<"await", [
    MemoryEffects<[MemRead<HO_TransferQueueResource>,
                   MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "wait until a prefetch has landed on the device";
  let description = [{
    Blocks the compute stream until the transfer behind `$future` has
    completed, then yields the device tensor. It is the only transfer op that
    compute waits for; a schedule hides a prefetch by issuing it early enough
    that its await does not stall. A future is awaited exactly once.

    Example:

    ```mlir
    %t = ho.await %f : !ho.future<tensor<64x512xbf16>> -> tensor<64x512xbf16>
    ```
  }];

  let arguments = (ins HO_AnyFuture:$future);
  let results = (outs AnyTensor:$result);
  let assemblyFormat = [{
    $future attr-dict `:` qualified(type($future)) `->` type($result)
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$future)>];
  let hasVerifier = 1;
}

def HO_WaitOffloadOp : HO_Op<"wait_offload", [
    MemoryEffects<[MemRead<HO_TransferQueueResource>,
                   MemWrite<HO_TransferQueueResource>]>]> {
  let summary = "wait until an offload has landed in its tier";
  let description = [{
    Blocks the compute stream until the copy of the `ho.offload` (or
    `ho.offload_slice`) that produced `$remote` has completed. An offload is otherwise asynchronous:
    its device buffer is freed when the copy completes, whenever that is.
    Waiting for it makes the memory free by this point (once the device
    value has no later use), which a plan needs when the budget must hold
    at an op that comes sooner than the copy would otherwise complete. The
    paper's Detach, made explicit where its timing matters.

    Example:

    ```mlir
    %r = ho.offload %act : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>>
    ho.wait_offload %r : !ho.remote<tensor<64x512xbf16>>
    ```
  }];

  let arguments = (ins HO_AnyRemote:$remote);
  let assemblyFormat = [{
    $remote attr-dict `:` qualified(type($remote))
  }];
  let hasVerifier = 1;
}

#endif // HYPEROFFLOAD_DIALECT_HO_HOOPS_TD
