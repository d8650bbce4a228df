// A KV cache that the step reads in picked blocks and appends one row to:
// when it does not fit, ho-plan-offload leaves it in the pool, fetches the
// picked blocks once the selection is known (the window's compute covers
// part of the copy) and stores back only the new row. When it fits, it
// stays. On the round-numbers target a block (250 KB) takes 0.25 ms to
// fetch.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=2MB" | FileCheck %s --check-prefix=STAGED
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=8MB" | FileCheck %s --check-prefix=RESIDENT
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=2MB" | FileCheck %s --check-prefix=LOWERED
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=2MB" | hyperoffload-opt --ho-lower-to-runtime | FileCheck %s --check-prefix=CALLS

// STAGED-LABEL: func.func @decode
// STAGED-SAME: %[[CACHE:[^:]+]]: !ho.remote<tensor<1x16x62500xf32>> {ho.placed_by_plan, ho.role = "kv_cache"}
// STAGED-SAME: -> (tensor<62500xf32>, !ho.remote<tensor<1x16x62500xf32>>)
// STAGED: %[[SEL:.+]] = ho.compute "select"
// STAGED-NEXT: %[[F:.+]] = ho.prefetch_blocks %[[CACHE]][%[[SEL]]] {axis = 1 : i64, block_size = 1 : i64}
// STAGED: ho.compute "window"
// STAGED: %[[S:.+]] = ho.await %[[F]]
// STAGED-NEXT: %[[B:.+]] = ho.gather_blocks %[[CACHE]][%[[SEL]]] staged(%[[S]] : tensor<1x2x62500xf32>)
// STAGED: ho.compute "selected"({{.*}}, %[[B]])
// STAGED: %[[NEXT:.+]] = ho.offload_slice %{{.+}} into %[[CACHE]] [0, 15, 0]
// STAGED-NOT: tensor.insert_slice
// STAGED: return %{{.+}}, %[[NEXT]]

// RESIDENT-LABEL: func.func @decode
// RESIDENT-SAME: tensor<1x16x62500xf32> {ho.role = "kv_cache"}
// RESIDENT-NOT: ho.prefetch_blocks
// RESIDENT: tensor.insert_slice

// The pipeline keeps the staging and places the fetched blocks.
// LOWERED: ho.prefetch_blocks
// LOWERED: ho.gather_blocks {{.*}} staged
// LOWERED: ho.offload_slice

// The lowered plan: the blocks are fetched into their places, put in the
// selection's order before the kernel, and the row goes back alone.
// CALLS: %[[G:.+]] = call @ho_blocks_begin(%{{.+}}, %{{.+}}, %arg1, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) : (i32, i32, i64, i64, i64, i64, i64, i64, i64) -> i64
// CALLS: %[[E:.+]] = call @ho_blocks_event(%[[G]])
// CALLS: call @ho_event_wait(%[[E]])
// CALLS: call @ho_blocks_ensure(%[[G]], %{{.+}}) : (i64, i64) -> ()
// CALLS: call @ho_offload_slice_start(
// CALLS-NOT: ho.gather_blocks

func.func @decode(%q: tensor<62500xf32> {ho.role = "input"},
                  %cache: tensor<1x16x62500xf32> {ho.role = "kv_cache"},
                  %row: tensor<1x1x62500xf32> {ho.role = "input"})
    -> (tensor<62500xf32>, tensor<1x16x62500xf32>) {
  %sel = ho.compute "select"(%q) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<62500xf32>) -> tensor<1x2xi32>
  %win = ho.compute "window"(%q) {flops = 500000000 : i64, bytes = 0 : i64}
      : (tensor<62500xf32>) -> tensor<62500xf32>
  %blocks = ho.gather_blocks %cache[%sel] {axis = 1 : i64, block_size = 1 : i64}
      : tensor<1x16x62500xf32>, tensor<1x2xi32> -> tensor<1x2x62500xf32>
  %o = ho.compute "selected"(%win, %blocks) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<62500xf32>, tensor<1x2x62500xf32>) -> tensor<62500xf32>
  %next = tensor.insert_slice %row into %cache[0, 15, 0] [1, 1, 62500] [1, 1, 1]
      : tensor<1x1x62500xf32> into tensor<1x16x62500xf32>
  return %o, %next : tensor<62500xf32>, tensor<1x16x62500xf32>
}
