//===- Passes.td - HyperOffload passes ---------------------*- tablegen -*-===//

#ifndef HYPEROFFLOAD_TRANSFORMS_PASSES_TD
#define HYPEROFFLOAD_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Options every pass that needs a hardware model shares.
defvar TargetOptions = [
  Option<"hw", "hw", "std::string", /*default=*/"\"\"",
         "Hardware model: a preset name (ascend910c-supernode, "
         "ascend910c-host, h200-pcie5, gh200-c2c) or a JSON file; "
         "the first preset by default">,
  ListOption<"hwOverrides", "hw-set", "std::string",
             "Hardware fields to override, as JSON field paths: "
             "hw-set=links.pool.bandwidth_gbps=100,device.hbm_capacity_gib=32">
];

def AssignOffsets : Pass<"ho-assign-offsets", "::mlir::ModuleOp"> {
  let summary = "Give every device buffer a fixed offset in one arena";
  let description = [{
    A runtime allocator places buffers as they come and fragments: a request
    can fail although enough bytes are free, and PyTorch's caching allocator
    then releases its cache while compute waits, and fails the request if
    that does not help (it never moves a live tensor). A compiled schedule knows every
    buffer's size and lifetime in advance, so it can plan the layout once:
    this pass gives each device buffer of each function an offset in one
    arena such that no two buffers live at the same time overlap. A run with
    `--ho-report="allocator=static"` then has no allocator stall by
    construction, and its footprint is the arena size.

    Lifetimes come from simulating the function as written (ideal allocator):
    a buffer with an `ho.offload` in flight stays allocated until the copy
    completes, so its memory is not reused while the copy still reads it.
    Buffers are placed largest first, each at the lowest offset where it
    overlaps no buffer live at the same time (the greedy-by-size heuristic of
    XLA's heap simulator and TFLite's arena planner, with first fit;
    `OffsetAssignment.h`). The plan is written as
    `ho.offsets` on every op that defines a buffer (one entry per result, -1
    for a result without a buffer of its own), `ho.offset` on every device
    argument, and the arena size as `ho.arena_size` on the function.
    Running the pass again replaces the plan.

    A plan must stay correct when the hardware is slower than simulated: a
    buffer read by an `ho.offload` is freed when its copy completes, so a
    later buffer placed over it gets an `ho.wait_offload` of that copy right
    before the op that allocates it (unless one comes earlier). On the
    target simulated the copy is done by then and the wait costs nothing; on
    a slower link compute waits instead of overwriting memory in use.

    Before:
    ```mlir
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %b = ho.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %c = ho.compute "relu"(%b) : (tensor<4xf32>) -> tensor<4xf32>
      return %c : tensor<4xf32>
    }
    ```
    After (granularity 1; %a is dead when %c is defined, so they share):
    ```mlir
    func.func @f(%x: tensor<4xf32> {ho.offset = 0 : i64}) -> tensor<4xf32>
        attributes {ho.arena_size = 48 : i64} {
      %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 16>} : ...
      %b = ho.compute "relu"(%a) {ho.offsets = array<i64: 32>} : ...
      %c = ho.compute "relu"(%b) {ho.offsets = array<i64: 16>} : ...
    ```
    With `report=true` each function gets a remark with its arena size, its
    peak of live bytes and the fragmentation overhead (the arena over the
    peak). With `budget`, the layout is searched harder when the
    greedy-by-size one exceeds it (placement by size x lifetime, by start,
    by lifetime and by end are also tried, the smallest kept); when none
    fits but the peak of live bytes does, an exact branch and bound over
    up to 256 buffers looks for a placement that fits, and the error says
    whether it proved that none exists or gave up. An arena larger than the
    budget is an error; with `allow-over-budget` it is a warning and the
    offsets are written anyway (`hyperoffload compare` scores plans that
    miss the budget this way).
  }];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Fail when an arena exceeds this much device memory: bytes with "
           "a unit (48GiB, 500MB), a fraction of the HBM capacity (0.75) or "
           "a percentage (75%); no limit by default">,
    Option<"allowOverBudget", "allow-over-budget", "bool", /*default=*/"false",
           "Assign the offsets even when an arena exceeds the budget, with "
           "a warning instead of the error, so that a plan that misses the "
           "budget can still be run and scored">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark per function with its arena size, its peak of "
           "live bytes and the fragmentation overhead">
  ]);
  let statistics = [
    Statistic<"arenaBytes", "arena-bytes",
              "Bytes of the arenas of all functions, summed">,
    Statistic<"numReuseWaits", "reuse-waits",
              "Waits added so that arena reuse follows the offload that "
              "frees the space">,
    Statistic<"numBuffersPlaced", "buffers-placed",
              "Device buffers given an offset">
  ];
}

def AnnotateCost : Pass<"ho-annotate-cost", "::mlir::ModuleOp"> {
  let summary = "Attach the cost model's estimate to every op, for inspection";
  let description = [{
    Attaches a `ho.cost` dictionary to every op that does device work: its
    FLOPs, the bytes it reads and writes, its roofline time on the chosen
    hardware in seconds, and where the estimate came from (`interface`,
    `collective` or `bytes-estimate`). Nothing else changes.

    Before:
    ```mlir
    %y = ho.compute "matmul"(%x, %w) : (tensor<64x512xbf16>, tensor<512x256xbf16>) -> tensor<64x256xbf16>
    ```
    After `--ho-annotate-cost="hw=h200-pcie5"`:
    ```mlir
    %y = ho.compute "matmul"(%x, %w) {ho.cost = {bytes = 360448 : i64,
        flops = 16777216 : i64, seconds = 5.0750933333333331E-6 : f64,
        source = "interface"}} : ...
    ```
  }];
  let options = TargetOptions;
}

def ConstantsAsArguments : Pass<"ho-constants-as-arguments", "::mlir::ModuleOp"> {
  let summary = "Turn the weights a function embeds as constants into arguments";
  let description = [{
    torch-mlir and TOSA front ends embed weights as `arith.constant` or
    `tosa.const` ops, and torch-mlir also as `ml_program.global` loaded with
    `ml_program.global_load_const`. Such a weight is memory like any other:
    one-shot bufferization turns it into a global that occupies the device
    for the whole program. The planner treats a constant in the body that
    way (resident from entry to exit), but it can only keep a weight in a
    tier, and fetch it when needed, if the caller hands it over: this pass
    makes every constant tensor of at least `min-bytes` a new argument of
    its function, with its value as `ho.constant` and the role `weight`, so
    that the plan treats it exactly as a weight passed in. The runtime (or
    whoever loads the program) supplies that value where the plan's
    signature says: on the device, or in the tier of a `!ho.remote`
    argument. IREE does the same with `--iree-opt-export-parameters`, which
    moves large constants into a parameter archive the runtime loads.

    Left in the body: constants smaller than `min-bytes` (shapes, small
    biases; they stay resident), splat constants used only as inits (a fill
    would make them: their contents are not read), and the constants of a
    function something calls, whose signature must not change.

    Before:
    ```mlir
    func.func @f(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
      %w = arith.constant dense<0.01> : tensor<1024x1024xf32>
      ...
    }
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<256x1024xf32>,
                 %w: tensor<1024x1024xf32> {ho.constant = dense<0.01> : tensor<1024x1024xf32>,
                                            ho.role = "weight"}) -> tensor<256x1024xf32> {
      ...
    }
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4096",
           "Smallest constant, in bytes, that becomes an argument">
  ];
  let statistics = [
    Statistic<"numConstants", "constants", "Constants made arguments">
  ];
}

def CheckPlannable : Pass<"ho-check-plannable", "::mlir::ModuleOp"> {
  let summary = "Reject, before any planning, a function the planner cannot take";
  let description = [{
    Checks every function with a body before anything is planned, so that an
    input the planner cannot take fails at once rather than after minutes of
    planning. Each violation is an error at the op that breaks the rule; any
    violation fails the pass. A passing run leaves the IR unchanged.

    1. The body is one block. Loops and branches must be ops with regions
       (scf); `mlir-opt --lift-cf-to-scf` turns a control-flow graph into
       them.
    2. Every tensor that needs a buffer has a static size. A view or cast
       to a dynamic type of a sized buffer is fine: it shares that buffer.
    3. No value is read after an op overwrote its buffer in place (only
       tied `ho.compute` results can do that: a destination-style result
       that would gets a buffer of its own).
    4. No buffer is overwritten in place between an offload already in the
       input and its `ho.wait_offload`.
    5. Every prefetch already in the input is awaited.

    Memref buffers (arguments, allocations, globals) are counted in the
    memory the function needs but never moved; a function that has them
    gets a warning, since the plan can only move its tensors. Plan before
    bufferization.

    `--hyperoffload` runs this pass first; `ho-plan-offload` checks the same
    rules when it runs alone.
  }];
  let statistics = [
    Statistic<"numMemRefFunctions", "memref-functions",
              "Functions with memref buffers the plan cannot move">
  ];
}

def ExplainCost : Pass<"ho-explain-cost", "::mlir::ModuleOp"> {
  let summary = "Remark on every op the cost model does not know";
  let description = [{
    Emits a remark at every op whose time the cost model could only estimate
    from the bytes of its tensor operands and results, because it implements
    no cost interface. Use it to find the ops that need an external cost
    model.
  }];
  let options = TargetOptions;
}

def PlaceInArena : Pass<"ho-place-in-arena", "::mlir::ModuleOp"> {
  let summary = "Put every device buffer of a lowered plan at its offset in "
                "the arena, ready for bufferization";
  let description = [{
    Runs after `ho-lower-to-runtime`, so that one-shot bufferization puts
    each device buffer where the static memory plan says rather than in an
    allocation of its own:

    - a `tensor.empty` with `ho.offsets` becomes the arena's bytes at its
      offset (`memref.view` of the arena, `bufferization.to_tensor
      restrict writable`), so the ops that write into it write the arena;
    - a destination-style op with `ho.offsets` (a new buffer whose init is
      still read later) gets the arena bytes as its init, filled from the
      old init by `bufferization.materialize_in_destination`;
    - any other op with `ho.offsets` has its result copied into the arena
      bytes, and later uses read them;
    - a device-resident argument (`ho.offset`) is read from the arena: the
      caller puts it there before the call.

    With `check-integrity`, every op that reads or writes arena bytes also
    tells the runtime so, through `ho_integrity_read(offset, bytes, owner,
    site)` before it and `ho_integrity_write(offset, bytes, site) -> owner`
    after it; `owner` names the data the op expects (what the last write
    into the buffer returned, `ho_integrity_copy_owner(copy)` for a fetched
    tensor, the argument number for an argument), and `site` indexes the
    locations listed in the function's `ho.integrity_sites`. A runtime that
    keeps which data each arena byte holds reports a read of bytes whose
    copy has not landed or that another buffer has overwritten at the op
    that did it (docs/Runtime.md).
  }];
  let options = [
    Option<"checkIntegrity", "check-integrity", "bool", "false",
           "Report every arena read and write to the runtime">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def SynthesizeKernels : Pass<"ho-synthesize-kernels", "::mlir::ModuleOp"> {
  let summary = "Replace each abstract ho.compute by a synthetic kernel that "
                "reads every operand and writes every result";
  let description = [{
    `ho.compute` has a cost but no semantics; this pass gives the modelled
    workloads something to run, so that a plan of them executes for real
    (`hyperoffload run`) and its results can be compared with the unplanned
    program's. Each op becomes linalg on tensors that:

    - reads every element of every operand into a checksum, the sum of
      (bits + 1) x (2 x linear index + 1) in wrapping 64-bit arithmetic,
      exact in any iteration order;
    - writes every element of every result from a hash of the checksums,
      the result number and the element's index: a float with its sign and
      top exponent bit clear (finite), an integer in [0, 4).

    A result is thus a function of every operand byte: an op that reads
    bytes before their copy lands, or after another buffer reused them,
    changes the program's results. A tied result (`tied_operands`) is
    written into its operand, in place, as the plan assumes. Operands and
    results must be tensors of static shape with integer, index or float
    elements.

    Run-time selections run too. A result that a routed kernel or a block
    gather reads as picks holds valid ones: the j-th id of row r is
    (h + j) mod N, for a hash h of the checksums and r, and N the experts
    or blocks it picks among, so a row's ids are distinct and depend on the
    inputs. `ho.routed`, and the kernel `ho-lower-to-runtime` makes of it,
    reads only the experts its picks name, keyed by global id and summed:
    where an expert is (resident or in any slot) does not change the bits.
    `ho.gather_blocks` of a device tensor is the gather it stands for, with
    zeros past a short last block.

    With `time-scale` S > 0, each kernel also takes at least S times the
    op's modelled time on `hw` (the roofline of its FLOPs and bytes, as the
    simulator prices it): it reads `ho_clock_ns()` before and calls
    `ho_wait_until_ns(start + S x modelled)` after, so that a run with the
    links emulated at 1/S of their bandwidth is the modelled step slowed S
    times, and its measured step and stall times can be set against the
    simulator's. Without it (the default) a kernel takes the time of its
    loops on this machine.
  }];
  let options = !listconcat(TargetOptions, [
    Option<"timeScale", "time-scale", "double", /*default=*/"0",
           "Make each kernel take at least this many times its modelled "
           "time on hw (0: its loops' time)">
  ]);
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def LowerToRuntime : Pass<"ho-lower-to-runtime", "::mlir::ModuleOp"> {
  let summary = "Rewrite a scheduled function's transfers into calls of the "
                "HyperOffload C runtime interface";
  let description = [{
    Lowers a function planned and placed by the pipeline (it needs the
    static memory plan of `ho-assign-offsets`) to calls of the C interface
    in `include/hyperoffload/Runtime/HyperOffloadRuntime.h`, so that any
    runtime can execute the plan:

    - `ho.offload` becomes `ho_offload_start(tier, queue, offset, bytes)`,
      which returns the copy's handle (`i64`);
    - `ho.wait_offload` becomes `ho_offload_wait(copy)`;
    - `ho.prefetch` becomes `ho_prefetch_start(tier, queue, copy, offset,
      bytes)`, which returns an event (`i64`);
    - `ho.await` becomes `ho_event_wait(event)`, and the awaited tensor is
      the arena's bytes at the buffer's offset: a `memref.view` of the arena
      (`ho_arena_base`, through MLIR's C interface) made a tensor with
      `bufferization.to_tensor`.

    `!ho.remote` arguments and results become `i64` handles. Queues are
    `2 * tier` towards the device and `2 * tier + 1` away from it. Compute
    ops keep their tensor form: a backend that bufferizes them puts each
    buffer at its `ho.offsets`. docs/Runtime.md has the details.

    ```mlir
    %r = ho.offload %x {...} : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
    ```
    becomes
    ```mlir
    %r = call @ho_offload_start(%c0_i32, %c1_i32, %offset, %c1000000) : (i32, i32, i64, i64) -> i64
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
  let statistics = [
    Statistic<"numCalls", "calls", "Runtime calls inserted">
  ];
}

def PlanOffload : Pass<"ho-plan-offload", "::mlir::ModuleOp"> {
  let summary = "Decide which tensors leave the device and when, and insert "
                "the transfers";
  let description = [{
    Plans every function body for a device-memory budget and writes the plan
    into the IR: `ho.offload` right after the last use before a gap,
    `ho.prefetch` timed to land just before the next use, `ho.await` right
    before it, and the later uses switched to the fetched copy. Arguments
    the plan keeps in a tier become `!ho.remote<..., tier>`: the caller
    passes them from that tier, and results that alias them (a KV cache
    updated in place) are stored back and returned as `!ho.remote` too.

    A function something calls keeps its signature, so it is not planned:
    it runs as written inside its caller's plan, where the call is one op,
    and it is an error when its peak as written is over the budget. Inline
    it first (`--inline`) to plan its work with its caller's. Before
    planning, every function must pass the checks of `ho-check-plannable`.

    `policy=hyperoffload` (the default) offloads only what the budget needs,
    times each transfer against the other traffic on its link with the cost
    model, and picks the tier per tensor. The baselines are `naive` (always
    offload, fetch right before use), `distance` (MindSpore's heuristic,
    distances in ops), `window` (ZeRO-Infinity's layer-window parameter
    prefetch) and `pt2` (PyTorch's compiled activation offloading).
    `policy=exact`, for small functions, searches every plan the planner
    could write for the fastest that fits, on the simulator, and says
    whether it proved that plan optimal (a remark), stopped at
    `exact-max-simulations` with the best found (a warning), or found that
    none fits or did not search (errors). docs/Planning.md has the details.

    When its plan stalls, the hyperoffload policy also plans the body with
    every op that overwrites an argument in place (a parameter, an optimizer
    state, a gradient accumulator), and the ops that feed only such an op,
    moved to right after the ops they must follow, and keeps that order when
    its plan is faster: the output may then run those updates earlier than
    written, with the same results. If the plan still stalls, it also plans
    the function with each large weight that only matmuls read split into
    column blocks (each matmul becomes one per block and a "concat"; the
    same results, bit for bit), and keeps that when faster: the function
    then takes the blocks as arguments, each marked `ho.column_block =
    array<i64: first, end>` with the columns it holds. Last, fetches that
    start on a link gone idle are issued earlier: where the simulated step
    gets shorter at once, then gap by gap in time order while the run still
    fits; the fastest schedule seen is kept.

    When no hyperoffload plan fits the budget, the pass takes the plan with
    the least device memory (`least-memory` asks for it outright): every gap
    is offloaded, each copy comes back right before its use, and computed
    results go back to the caller in the tier. Compute waits for a store
    where the memory is needed, or, when that does not fit, after every
    store. Each op then holds little more than what it reads and writes, so
    any budget at or above the memory lower bound is met, except where the
    static arena's fragmentation exceeds the budget's slack.

    Before (budget too small for both caches):
    ```mlir
    func.func @f(%kv: tensor<...>, ...) -> tensor<...> {
      %new = ho.compute "kv_append"(%kv, %x) {tied_operands = array<i64: 0>} ...
    ```
    After:
    ```mlir
    func.func @f(%kv: !ho.remote<tensor<...>>, ...) -> !ho.remote<tensor<...>> {
      %f = ho.prefetch %kv : ...
      ... compute that hides the copy ...
      %t = ho.await %f : ...
      %new = ho.compute "kv_append"(%t, %x) {tied_operands = array<i64: 0>} ...
      %back = ho.offload %new : ...
    ```
  }];
  // The plan writes ho ops and types into IR that may hold none yet
  // (upstream linalg or tosa), tensor.empty for unread inits and
  // linalg.copy for slices it stores.
  let dependentDialects = ["::mlir::ho::HODialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Device memory the plan must fit in: bytes with a unit (48GiB), "
           "a fraction of the HBM capacity (0.75) or a percentage (75%); "
           "without it, the whole HBM (a remark says so)">,
    Option<"policy", "policy", "::mlir::ho::OffloadPolicy",
           /*default=*/"::mlir::ho::OffloadPolicy::HyperOffload",
           "Planning policy",
           [{::llvm::cl::values(
             clEnumValN(::mlir::ho::OffloadPolicy::HyperOffload,
                        "hyperoffload", "cost-model timing, only what the "
                        "budget needs"),
             clEnumValN(::mlir::ho::OffloadPolicy::Naive, "naive",
                        "always offload, fetch right before use"),
             clEnumValN(::mlir::ho::OffloadPolicy::Distance, "distance",
                        "MindSpore's heuristic: distances in ops"),
             clEnumValN(::mlir::ho::OffloadPolicy::Window, "window",
                        "ZeRO-Infinity: fetch weights a few layers ahead"),
             clEnumValN(::mlir::ho::OffloadPolicy::PT2, "pt2",
                        "PyTorch activation offloading: saved activations "
                        "out and back"),
             clEnumValN(::mlir::ho::OffloadPolicy::Exact, "exact",
                        "the fastest plan that fits, searched on the "
                        "simulator (small functions)"))}]>,
    Option<"distanceMinGap", "distance-min-gap", "unsigned",
           /*default=*/"100", "distance: offload gaps of at least this "
           "many ops">,
    Option<"distanceMaxTensors", "distance-max-tensors", "unsigned",
           /*default=*/"100", "distance: offload at most this many tensors">,
    Option<"distancePrefetchLead", "distance-prefetch-lead", "unsigned",
           /*default=*/"50", "distance: issue prefetches this many ops "
           "before the use">,
    Option<"windowLayers", "window-layers", "unsigned", /*default=*/"2",
           "window: fetch a layer's weights when the layer this many layers "
           "before it starts">,
    Option<"windowPersistenceThreshold", "window-persistence-threshold",
           "int64_t", /*default=*/"100000",
           "window: weights of fewer elements stay on the device, the rest "
           "live in the tier whether read or not (ZeRO-3's "
           "stage3_param_persistence_threshold)">,
    Option<"pt2ReloadPrefetch", "pt2-reload-prefetch", "bool",
           /*default=*/"true",
           "pt2: hoist reloads until compute covers them "
           "(PyTorch's activation_reload_prefetch, off as shipped)">,
    Option<"pt2SeparateStream", "pt2-separate-stream", "bool",
           /*default=*/"true",
           "pt2: copies on a stream of their own; otherwise compute waits "
           "for each offload (activation_offload_separate_stream, off as "
           "shipped)">,
    Option<"everyLink", "every-link", "bool", /*default=*/"false",
           "naive, distance, window, pt2: spread copies over every link "
           "the target has, each where it would complete first (their "
           "systems use the fastest link alone)">,
    Option<"rewrites", "rewrites", "bool", /*default=*/"true",
           "hyperoffload: while the plan stalls, also plan the program with "
           "its updates moved early and its large weights in column blocks">,
    Option<"localSearch", "local-search", "bool", /*default=*/"true",
           "hyperoffload: while the plan stalls, also try the plans one "
           "decision away from it on the simulator (fewer the more ops a "
           "function has; none past 128)">,
    Option<"leastMemory", "least-memory", "bool", /*default=*/"false",
           "hyperoffload: plan for the least device memory, whatever it costs "
           "in time (taken anyway when no other plan fits the budget)">,
    Option<"predictorAccuracy", "predictor-accuracy", "double",
           /*default=*/"0.9",
           "hyperoffload: the fraction of experts an early prediction of a "
           "router's picks gets right, as measured for the model; plans "
           "that fetch experts on a prediction are scored with it">,
    Option<"exactMaxGaps", "exact-max-gaps", "unsigned", /*default=*/"24",
           "exact: do not search functions with more gaps than this">,
    Option<"exactMaxSimulations", "exact-max-simulations", "uint64_t",
           /*default=*/"50000",
           "exact: stop after simulating this many plans and keep the best "
           "found">,
    Option<"exactCuts", "exact-cuts", "bool", /*default=*/"true",
           "exact: cut the search by its bounds; off, every plan is "
           "simulated (to check the cuts)">
  ]);
  let statistics = [
    Statistic<"numRemoteArguments", "remote-arguments",
              "Arguments the caller keeps in a tier">,
    Statistic<"numOffloads", "offloads", "Offloads inserted">,
    Statistic<"numPrefetches", "prefetches", "Prefetches inserted">
  ];
}

def RefineOrder : Pass<"ho-refine-order", "::mlir::ModuleOp"> {
  let summary = "Reorder independent ops so that compute hides transfers and "
                "the peak drops";
  let description = [{
    Refines the execution order of every function body after planning. Two
    moves are tried, each scored by simulating the whole body:
    1. At an `ho.await` that stalls, ops that follow it and do not depend on
       it are hoisted before it until their estimated compute covers the
       stall.
    2. At the peak of live memory, an op whose result is first used after
       the peak is sunk to right before that use.
    A new order is kept only when it is faster (or equally fast with a
    lower peak) and still fits the budget, live bytes and static arena both;
    the pass never makes a schedule slower or larger. `max-trials` bounds
    the number of orders simulated per function (each move type gets its
    own).

    The `--hyperoffload` pipeline runs it twice: lowering the peak before
    planning, so that less must move, and hiding stalls after.

    Ops keep their relative order when one uses a value the other defines,
    when one writes a buffer in place that the other reads or writes, when
    either has side effects other than on tensors, and when both are
    transfers, so results never change.

    On the round-numbers target (1 MB moves in 1 ms), `"b"` does not need
    the fetched copy and moves before the await, hiding the copy:
    ```mlir
    %f = ho.prefetch %r : ...
    %t = ho.await %f : ...              // waits 1 ms
    %a = ho.compute "a"(%t) ...
    %b = ho.compute "b"(%x) {flops = 1000000000 : i64} ...
    ```
    becomes
    ```mlir
    %f = ho.prefetch %r : ...
    %b = ho.compute "b"(%x) {flops = 1000000000 : i64} ...
    %t = ho.await %f : ...              // the copy has landed
    %a = ho.compute "a"(%t) ...
    ```
  }];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Device memory the schedule must still fit in: bytes with a unit "
           "(48GiB), a fraction of the HBM capacity (0.75) or a percentage "
           "(75%); the whole capacity by default">,
    Option<"hideStalls", "hide-stalls", "bool", /*default=*/"true",
           "Hoist ops over awaits that stall">,
    Option<"lowerPeak", "lower-peak", "bool", /*default=*/"true",
           "Sink ops past the peak of live memory">,
    Option<"maxTrials", "max-trials", "unsigned", /*default=*/"8",
           "Orders simulated per function at most">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark on each function's step time and peak before and after">
  ]);
  let statistics = [
    Statistic<"numHoisted", "hoisted", "Ops hoisted over stalling awaits">,
    Statistic<"numSunk", "sunk", "Ops sunk past the peak">
  ];
}

def ReplayReactive : Pass<"ho-replay-reactive", "::mlir::ModuleOp"> {
  let summary = "Write the moves of the reactive runtime as blocking transfers";
  let description = [{
    Simulates every function on the reactive runtime (`--ho-report=
    "mode=reactive"`, docs/CostModel.md) at `budget` and writes what that
    runtime did as explicit transfers that compute waits for at once:

    - an argument the runtime starts in the tier becomes `!ho.remote`;
    - a fetch before an op becomes a `ho.prefetch` and its `ho.await`,
      right before the op, and the op reads the fetched copy;
    - an eviction becomes a `ho.offload` and its `ho.wait_offload`;
    - a drop (a buffer whose tier copy is current) is no op: the device
      value has no later use. An argument that starts on the device and is
      fetched again after a drop gets a trailing `!ho.remote` argument with
      `ho.tier_copy_of`, the copy of it that the caller keeps in the tier;
    - a result left in the tier is returned there.

    The result is a schedule like any plan's: `ho-assign-offsets`,
    `ho-lower-to-runtime` and `hyperoffload run --reactive` take it, so the
    reactive baseline runs for real, on the same runtime and links as the
    plan. Every copy goes over the fastest link (an IR transfer names one
    tier), where the simulated runtime may split a large copy over several
    links: on a target with one link the replay moves exactly what the
    simulated runtime moves. A function with `ho.routed` or
    `ho.gather_blocks` is refused: the runtime fetches what their picks
    name when they run, which a replay written before the run cannot name.
  }];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Device memory the runtime may use: bytes with a unit, a "
           "fraction of the HBM capacity or a percentage">,
    Option<"allocator", "allocator", "::mlir::ho::AllocatorKind",
           /*default=*/"::mlir::ho::AllocatorKind::Caching",
           "The runtime's allocator",
           [{::llvm::cl::values(
             clEnumValN(::mlir::ho::AllocatorKind::Caching, "caching",
                        "PyTorch's caching allocator, as it ships"),
             clEnumValN(::mlir::ho::AllocatorKind::Expandable, "expandable",
                        "the caching allocator with expandable segments"))}]>
  ]);
  let statistics = [
    Statistic<"numFetches", "fetches", "Blocking fetches written">,
    Statistic<"numEvictions", "evictions", "Evictions, with or without a copy">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def StripTransfers : Pass<"ho-strip-transfers", "::mlir::ModuleOp"> {
  let summary = "Remove every transfer of a schedule, keeping what it computes";
  let description = [{
    Writes the program a schedule (a plan, or `ho-replay-reactive`'s replay)
    was made from, with every tensor on the device:

    - a `!ho.remote` argument or result becomes the tensor it holds, and an
      argument with `ho.tier_copy_of` is folded into the one it copies;
    - a `ho.offload`'s remote is the tensor it stored, a `ho.prefetch`
      awaited by `ho.await` reads the tensor it fetched, and a
      `ho.wait_offload` goes;
    - a `ho.offload_slice` becomes the `tensor.insert_slice` it stands for;
    - a `ho.prefetch_routed` or `ho.prefetch_blocks` and its `ho.await` go,
      and the `ho.routed` or `ho.gather_blocks` that read the staged slots
      read their experts or source, now on the device;
    - the static memory plan's attributes (`ho.arena_size`, `ho.offsets`,
      `ho.offset`) go.

    The values computed are those of the schedule, so `hyperoffload run`
    runs a planned file next to this program and compares them. A function
    with transfers inside a region, or whose staged slots or blocks are
    read by anything but the op they stage, is refused with an error at
    that op.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def Report : Pass<"ho-report", "::mlir::ModuleOp"> {
  let summary = "Simulate every function and report step time, stalls and memory";
  let description = [{
    Runs the timeline simulator (docs/CostModel.md) on the body of every
    function in the module and prints a summary per function: step time,
    compute time, stalls, allocator stalls, peak live and peak allocated device
    memory, and the traffic on each link. Optionally writes the metrics as
    JSON and the timeline as a Chrome trace-event file that Perfetto opens.
    The IR is not changed.

    ```
    hyperoffload-opt --ho-report="hw=ascend910c-host allocator=caching trace=t.json" in.mlir -o /dev/null
    ```
  }];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Device memory the run may use: bytes with a unit (48GiB, "
           "500MB), a fraction of the HBM capacity (0.75) or a percentage "
           "(75%); the whole capacity by default">,
    Option<"allocator", "allocator", "::mlir::ho::AllocatorKind",
           /*default=*/"::mlir::ho::AllocatorKind::Caching",
           "Allocator model",
           [{::llvm::cl::values(
             clEnumValN(::mlir::ho::AllocatorKind::Static, "static",
                        "offsets from the plan in the IR"),
             clEnumValN(::mlir::ho::AllocatorKind::Caching, "caching",
                        "PyTorch's caching allocator: never moves a tensor, "
                        "releases its cache and retries, then runs out of "
                        "memory"),
             clEnumValN(::mlir::ho::AllocatorKind::Expandable, "expandable",
                        "the caching allocator with expandable segments: "
                        "pages mapped on demand, remapped after a release"),
             clEnumValN(::mlir::ho::AllocatorKind::Ideal, "ideal",
                        "no fragmentation"),
             clEnumValN(::mlir::ho::AllocatorKind::Paged, "paged",
                        "fixed-size blocks, as vLLM's paged KV cache"))}]>,
    Option<"blockSize", "block-size", "std::string", /*default=*/"\"64KiB\"",
           "Block size of the paged allocator, in bytes with a unit">,
    Option<"mode", "mode", "::mlir::ho::ExecutionMode",
           /*default=*/"::mlir::ho::ExecutionMode::AsWritten",
           "How transfers happen",
           [{::llvm::cl::values(
             clEnumValN(::mlir::ho::ExecutionMode::AsWritten, "as-written",
                        "the transfers in the IR are the schedule"),
             clEnumValN(::mlir::ho::ExecutionMode::Reactive, "reactive",
                        "no plan: fetch on demand, evict least recently "
                        "used"),
             clEnumValN(::mlir::ho::ExecutionMode::Paged, "paged",
                        "no plan, vLLM PagedAttention: a KV block pool "
                        "beside the weights, the other caches loaded a "
                        "layer ahead; needs allocator=paged"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print the summary; '-' for stdout">,
    Option<"jsonFile", "json", "std::string", /*default=*/"\"\"",
           "Write the metrics as JSON to this file">,
    Option<"traceFile", "trace", "std::string", /*default=*/"\"\"",
           "Write the timeline as a Chrome trace-event file">
  ]);
}

def VerifySchedule : Pass<"ho-verify-schedule", "::mlir::ModuleOp"> {
  let summary = "Check that every transfer, buffer and budget of a schedule is correct";
  let description = [{
    Checks every rule a correct schedule obeys, so that a hand-written or
    generated plan fails here, at the op that breaks it, rather than running
    and producing wrong data or running out of memory on the device. Each
    violation is an error at the offending op with a note at the related op;
    any violation fails the pass. A passing run leaves the IR unchanged.

    For every function with a body:
    1. A use reads a copy that has arrived: SSA dominance orders an await
       before the uses of its result, and a `ho.prefetch` of the result of an
       `ho.offload` must be issued after that copy has completed, which the
       simulator decides.
    2. No value is read after an op overwrote its buffer in place (a
       `ho.compute` result in `tied_operands`, the init of a
       destination-style op). Reading a device value after offloading it is
       fine: the offload only copies it; overwriting its buffer in place is
       not, until a `ho.wait_offload` of that offload (compute waits for an
       offload nowhere else, so the write would race the copy).
    3. Every prefetch is awaited. Returning its future hands it to the
       caller; passing it to any other op does not count.
    4. The live buffers fit in `budget` at every point, simulated as written
       with an allocator without fragmentation.
    5. When the function carries a static plan (`ho.offsets`, `ho.offset`),
       every buffer has an offset and live buffers do not overlap.
    6. With a static plan, no buffer is placed over the bytes of one whose
       `ho.offload` or `ho.offload_slice` has not been waited for
       (`ho.wait_offload`) before the op that allocates it: the stored
       buffer is free only once its copy completes, so on a link slower
       than planned the reuse would race the copy, whatever the simulated
       timing. `ho-assign-offsets` adds those waits.

    On the round-numbers target (1 MB moves in 1 ms) this prefetch starts
    while its offload is still copying:
    ```mlir
    %r = ho.offload %x : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
    // error: prefetch starts at 0 us, before the offload of its source
    // completes at 1000 us; it would read a copy that has not arrived
    %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
    ```
    and this one is correct: 1 ms of compute covers the offload.
    ```mlir
    %r = ho.offload %x : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
    %y = ho.compute "work"(%w) {flops = 1000000000 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
    ```
  }];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Device memory the schedule may use: bytes with a unit (48GiB, "
           "500MB), a fraction of the HBM capacity (0.75) or a percentage "
           "(75%); the whole capacity by default">
  ]);
  let statistics = [
    Statistic<"numFunctions", "functions", "Functions checked">,
    Statistic<"numTransfers", "transfers",
              "Transfers (offloads and prefetches) checked">,
    Statistic<"numViolatingFunctions", "violating-functions",
              "Functions that break at least one rule">
  ];
}

#endif // HYPEROFFLOAD_TRANSFORMS_PASSES_TD
