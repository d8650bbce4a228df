// A KV cache the budget sends back to the pool is stored after its last
// use, and a use inside a loop's body counts where the loop is: the store
// comes after the scf.for that reads the cache, not before it. The
// round-numbers target moves 1 MB in 1 ms.
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-plan-offload="hw=%S/Inputs/round-numbers.json budget=1500000B" | hyperoffload-opt --ho-verify-schedule="hw=%S/Inputs/round-numbers.json budget=1500000B" -o /dev/null

// CHECK-LABEL: func.func @loop_reads_cache
// CHECK: %[[NEW:.+]] = ho.compute "kv_append"
// CHECK: scf.for
// CHECK: ho.compute "attention"({{.*}}, %[[NEW]])
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[BACK:.+]] = ho.offload %[[NEW]]
// CHECK: return %[[BACK]]
func.func @loop_reads_cache(%kv: tensor<250000xf32> {ho.role = "kv_cache"}, %x: tensor<4xf32>)
    -> (tensor<250000xf32>, tensor<4xf32>) {
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<250000xf32>
  %s = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<4xf32>
  %new = ho.compute "kv_append"(%kv, %s) {tied_operands = array<i64: 0>, flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<250000xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %s) -> (tensor<4xf32>) {
    %y = ho.compute "attention"(%acc, %new) {flops = 1000000000 : i64, bytes = 0 : i64}
        : (tensor<4xf32>, tensor<250000xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %new, %r : tensor<250000xf32>, tensor<4xf32>
}
