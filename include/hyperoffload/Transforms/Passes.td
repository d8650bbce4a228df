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

def Report : Pass<"ho-report", "::mlir::ModuleOp"> {
  let summary = "Simulate every function and report step time, stalls and memory";
  let description = [{
    Runs the timeline simulator (docs/CostModel.md) on the body of every
    function in the module and prints a summary per function: step time,
    compute time, stalls, compactions, peak live and peak allocated device
    memory, and the traffic on each link. Optionally writes the metrics as
    JSON and the timeline as a Chrome trace-event file that Perfetto opens.
    The IR is not changed.

    ```
    hyperoffload-opt --ho-report="hw=ascend910c-host allocator=dynamic trace=t.json" in.mlir -o /dev/null
    ```
  }];
  let options = !listconcat(TargetOptions, [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Device memory the run may use: bytes with a unit (48GiB, "
           "500MB), a fraction of the HBM capacity (0.75) or a percentage "
           "(75%); the whole capacity by default">,
    Option<"allocator", "allocator", "::mlir::ho::AllocatorKind",
           /*default=*/"::mlir::ho::AllocatorKind::Dynamic",
           "Allocator model",
           [{::llvm::cl::values(
             clEnumValN(::mlir::ho::AllocatorKind::Static, "static",
                        "offsets from the plan in the IR"),
             clEnumValN(::mlir::ho::AllocatorKind::Dynamic, "dynamic",
                        "best fit; fragments and compacts"),
             clEnumValN(::mlir::ho::AllocatorKind::Ideal, "ideal",
                        "no fragmentation"))}]>,
    Option<"mode", "mode", "::mlir::ho::ExecutionMode",
           /*default=*/"::mlir::ho::ExecutionMode::AsWritten",
           "How transfers happen",
           [{::llvm::cl::values(
             clEnumValN(::mlir::ho::ExecutionMode::AsWritten, "as-written",
                        "the transfers in the IR are the schedule"),
             clEnumValN(::mlir::ho::ExecutionMode::Reactive, "reactive",
                        "no plan: fetch on demand, evict least recently "
                        "used"))}]>,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to print the summary; '-' for stdout">,
    Option<"jsonFile", "json", "std::string", /*default=*/"\"\"",
           "Write the metrics as JSON to this file">,
    Option<"traceFile", "trace", "std::string", /*default=*/"\"\"",
           "Write the timeline as a Chrome trace-event file">
  ]);
}

#endif // HYPEROFFLOAD_TRANSFORMS_PASSES_TD
