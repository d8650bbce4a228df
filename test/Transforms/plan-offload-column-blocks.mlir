// Weights streamed in column blocks need room for one block, not the whole
// weight. The round-numbers target moves 1 MB per ms over its pool link and
// computes these matmuls in microseconds; the budget is 6 MB.
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=6MB" --ho-report="hw=%S/Inputs/round-numbers.json budget=6MB allocator=static" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=6MB" | FileCheck %s

// Two 4 MB weights, each read once. Whole, they cannot both be on the
// device, and neither can be fetched while the other is: each comes over
// the link on its own, 8 ms. Split into blocks of at most 6 MB / 512 (500
// blocks of two columns, 8 KB each), all but 2 MB of them stay and the rest
// stream in behind the matmuls: 2 ms of transfer. The bound is the
// program's, whichever blocks a plan leaves in the pool (they carry
// ho.placed_by_plan): 2 MB must cross, 2.004 ms with the compute.
// REPORT-LABEL: @blocks simulation
// REPORT:       step time       2.027 ms
// REPORT:       peak live       6.00 MB of a 6.00 MB budget
// REPORT:       traffic         pool -> device   2.02 MB in 253 transfers
// REPORT:       deadline bound  2.004 ms
// REPORT:       gap to bound    +1.1%
// CHECK-LABEL: func.func @blocks(
// CHECK-SAME:    %arg1: tensor<1000x2xf32> {ho.column_block = array<i64: 0, 2>,
// CHECK-SAME:    !ho.remote<tensor<1000x2xf32>> {ho.column_block = array<i64: 998, 1000>,
// CHECK:         ho.compute "concat"
// CHECK-SAME:    -> tensor<1x1000xf32>
func.func @blocks(%x: tensor<1x1000xf32>,
                  %w1: tensor<1000x1000xf32> {ho.role = "weight"},
                  %w2: tensor<1000x1000xf32> {ho.role = "weight"}) -> tensor<1x1000xf32> {
  %y1 = ho.compute "matmul"(%x, %w1) : (tensor<1x1000xf32>, tensor<1000x1000xf32>) -> tensor<1x1000xf32>
  %y2 = ho.compute "matmul"(%y1, %w2) : (tensor<1x1000xf32>, tensor<1000x1000xf32>) -> tensor<1x1000xf32>
  %z = ho.compute "copy"(%y2) : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %z : tensor<1x1000xf32>
}

// The same with cost hints, which keep the matmuls whole (a hint cannot be
// split with them): both weights are passed in the pool and fetched one
// after the other, each once its link is free, 8 ms.
// REPORT-LABEL: @whole simulation
// REPORT:       step time       8.008 ms
// REPORT:       traffic         pool -> device   8.00 MB in 2 transfers
// CHECK-LABEL: func.func @whole(
// CHECK-SAME:    !ho.remote<tensor<1000x1000xf32>> {ho.placed_by_plan, ho.role = "weight"}
// CHECK-NOT:     ho.column_block
// CHECK:         return
func.func @whole(%x: tensor<1x1000xf32>,
                 %w1: tensor<1000x1000xf32> {ho.role = "weight"},
                 %w2: tensor<1000x1000xf32> {ho.role = "weight"}) -> tensor<1x1000xf32> {
  %y1 = ho.compute "matmul"(%x, %w1) {flops = 2000000 : i64, bytes = 4008000 : i64}
      : (tensor<1x1000xf32>, tensor<1000x1000xf32>) -> tensor<1x1000xf32>
  %y2 = ho.compute "matmul"(%y1, %w2) {flops = 2000000 : i64, bytes = 4008000 : i64}
      : (tensor<1x1000xf32>, tensor<1000x1000xf32>) -> tensor<1x1000xf32>
  %z = ho.compute "copy"(%y2) : (tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %z : tensor<1x1000xf32>
}
