// The reactive runtime's moves written as IR: at 14 MB with the expandable
// allocator it starts %w2 in the tier (dropped before any use), fetches it
// before "b", fetches %w1 again from the caller's tier copy before "c",
// evicts %a with a copy before "c" and fetches it back before "d".
// RUN: hyperoffload-opt %s --ho-replay-reactive="hw=h200-pcie5 budget=14MB allocator=expandable" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-replay-reactive="hw=h200-pcie5 budget=14MB allocator=expandable" | hyperoffload-opt --ho-verify-schedule="hw=h200-pcie5"
// RUN: not hyperoffload-opt %s --ho-replay-reactive="hw=h200-pcie5 budget=10MB allocator=expandable" 2>&1 | FileCheck %s --check-prefix=OOM
// RUN: not hyperoffload-opt %S/../Execution/Inputs/routed-moe.mlir --ho-replay-reactive="hw=%S/Inputs/round-numbers.json budget=7MB" 2>&1 | FileCheck %s --check-prefix=ROUTED

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[W1:[a-z0-9]+]]: tensor<1048576xf32>, %[[W2:[a-z0-9]+]]: !ho.remote<tensor<1048576xf32>, host>, %[[X:[a-z0-9]+]]: tensor<1048576xf32>,
// CHECK-SAME: %[[W1COPY:[a-z0-9]+]]: !ho.remote<tensor<1048576xf32>, host> {ho.tier_copy_of = 0 : i64}
// CHECK: %[[A:.*]] = ho.compute "a"(%[[X]], %[[W1]])
// CHECK: %[[F2:.*]] = ho.prefetch %[[W2]]
// CHECK: %[[D2:.*]] = ho.await %[[F2]]
// CHECK: %[[B:.*]] = ho.compute "b"(%[[A]], %[[D2]])
// CHECK: %[[F1:.*]] = ho.prefetch %[[W1COPY]]
// CHECK: %[[D1:.*]] = ho.await %[[F1]]
// CHECK: %[[R:.*]] = ho.offload %[[A]]
// CHECK: ho.wait_offload %[[R]]
// CHECK: %[[C:.*]] = ho.compute "c"(%[[B]], %[[D1]])
// CHECK: %[[FA:.*]] = ho.prefetch %[[R]]
// CHECK: %[[DA:.*]] = ho.await %[[FA]]
// CHECK: ho.compute "d"(%[[C]], %[[DA]])

// OOM: error: the reactive runtime runs out of memory on @f at this budget; nothing to replay
// OOM: note: the allocation that fails
// ROUTED: routed-moe.mlir:17:9: error: cannot replay the reactive run: the runtime fetches what this 'ho.routed' picks at run time, which a replay written before the run cannot name
func.func @f(%w1: tensor<1048576xf32>, %w2: tensor<1048576xf32>, %x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %a = ho.compute "a"(%x, %w1) {flops = 1000000 : i64} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %b = ho.compute "b"(%a, %w2) {flops = 1000000 : i64} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %c = ho.compute "c"(%b, %w1) {flops = 1000000 : i64} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  %d = ho.compute "d"(%c, %a) {tied_operands = array<i64: 1>} : (tensor<1048576xf32>, tensor<1048576xf32>) -> tensor<1048576xf32>
  return %d : tensor<1048576xf32>
}
