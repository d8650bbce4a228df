// The stock mlir-opt (mlir-22-tools), not hyperoffload-opt, runs HyperOffload
// from libHyperOffloadPlugin.so: the dialect plugin brings the `ho` dialect
// and the linalg/tosa cost models, the pass plugin the passes and the
// pipeline. mlir-opt builds its pass flags before it loads plugins, so plugin
// passes are named in --pass-pipeline rather than as --ho-* flags.
// REQUIRES: mlir-opt
// RUN: %mlir_opt %s -split-input-file \
// RUN:   --load-dialect-plugin=%hyperoffload_plugin --load-pass-plugin=%hyperoffload_plugin \
// RUN:   --pass-pipeline="builtin.module(hyperoffload{hw=%S/../Transforms/Inputs/round-numbers.json budget=1500000B})" \
// RUN:   | FileCheck %s
// RUN: %mlir_opt %s -split-input-file \
// RUN:   --load-dialect-plugin=%hyperoffload_plugin --load-pass-plugin=%hyperoffload_plugin \
// RUN:   --pass-pipeline="builtin.module(hyperoffload{hw=%S/../Transforms/Inputs/round-numbers.json budget=1500000B}, ho-report{hw=%S/../Transforms/Inputs/round-numbers.json budget=1500000B allocator=static})" \
// RUN:   -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: %mlir_opt %s -split-input-file \
// RUN:   --load-dialect-plugin=%hyperoffload_plugin --load-pass-plugin=%hyperoffload_plugin \
// RUN:   --pass-pipeline="builtin.module(ho-annotate-cost{hw=%S/../Transforms/Inputs/round-numbers.json})" \
// RUN:   | FileCheck %s --check-prefix=COST
// RUN: %mlir_opt %s -split-input-file \
// RUN:   --load-dialect-plugin=%hyperoffload_plugin --load-pass-plugin=%hyperoffload_plugin \
// RUN:   --pass-pipeline="builtin.module(hyperoffload{hw=%S/../Transforms/Inputs/round-numbers.json budget=1500000B}, ho-lower-to-runtime)" \
// RUN:   | FileCheck %s --check-prefix=LOWERED
// RUN: %mlir_opt --load-pass-plugin=%hyperoffload_plugin --help | FileCheck %s --check-prefix=HELP

// The plan, lowered to the runtime interface, all within mlir-opt.
// LOWERED-LABEL: func.func @kv_cache
// LOWERED: call @ho_arena_base()
// LOWERED: call @ho_prefetch_start
// LOWERED: call @ho_event_wait
// LOWERED: call @ho_offload_start

// Every pass and the pipeline are registered.
// HELP-DAG: --ho-annotate-cost
// HELP-DAG: --ho-assign-offsets
// HELP-DAG: --ho-explain-cost
// HELP-DAG: --ho-lower-to-runtime
// HELP-DAG: --ho-plan-offload
// HELP-DAG: --ho-refine-order
// HELP-DAG: --ho-report
// HELP-DAG: --ho-verify-schedule
// HELP-DAG: --hyperoffload

// The same plan as hyperoffload-opt makes (test/Transforms/pipeline.mlir):
// the cache stays in the pool until w1's result is gone, comes back while w3
// runs, and returns to the pool; every device buffer has its offset.
// CHECK-LABEL: func.func @kv_cache
// CHECK-SAME: !ho.remote<tensor<250000xf32>> {ho.placed_by_plan, ho.role = "kv_cache"}
// CHECK-SAME: attributes {ho.arena_size = [[ARENA:[0-9]+]] : i64}
// CHECK: ho.compute "w2"
// CHECK-NEXT: ho.prefetch {{.*}}ho.offsets = array<i64: [[OFFSET:[0-9]+]]>
// CHECK-NEXT: ho.compute "w3"
// CHECK-NEXT: ho.await
// CHECK: ho.offload
// CHECK-NEXT: return

// REPORT: @kv_cache simulation on round-numbers: as-written, static allocator
// REPORT: allocator       0 stalls
// REPORT: out of memory   no
// REPORT: traffic         pool -> device   1.00 MB in 1 transfers
func.func @kv_cache(%x: tensor<4xf32>, %kv: tensor<250000xf32> {ho.role = "kv_cache"})
    -> (tensor<4xf32>, tensor<250000xf32>) {
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %b = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %c = ho.compute "w3"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %kv2 = ho.compute "kv_append"(%kv, %c) {tied_operands = array<i64: 0>, flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<250000xf32>
  %y = ho.compute "attention"(%c, %kv2) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>, tensor<250000xf32>) -> tensor<4xf32>
  return %y, %kv2 : tensor<4xf32>, tensor<250000xf32>
}

// -----

// Upstream ops cost what CostExternalModels.h says, so the dialect plugin
// attached the linalg models: 2 * 4*16*8 flops, 128 + 512 + 2 * 256 bytes.
// CHECK-LABEL: func.func @linalg_matmul
// CHECK-SAME: attributes {ho.arena_size =
// COST-LABEL: func.func @linalg_matmul
// COST: linalg.matmul
// COST-SAME: ho.cost = {bytes = 1152 : i64, flops = 1024 : i64, {{.*}}source = "interface"}
func.func @linalg_matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                         %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
      outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
