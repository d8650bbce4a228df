// Ops with regions in the pipeline: an scf.for is one unit, timed with the
// counts its model sums from its body, and it needs on the device its
// operands, its results and what its body reads from outside (the weight
// %w here), all at once. The round-numbers target computes 1e9 FLOPs in
// 1 ms and moves 1 MB over its pool link in 1 ms each way.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json" -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=4500000B" | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=4500000B" | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json budget=4500000B allocator=static" -o /dev/null | FileCheck %s --check-prefix=PLANNED
// RUN: not hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=3500000B" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIGHT

// As written: w1 and w2 take 1 ms each, the loop 4 x 0.25e9 FLOPs = 1 ms.
// The peak (6 MB: %x, %w, %big, %b) is at w2; the loop needs %b, %w and
// its result at once, 4 MB, more than any other op.
// REPORT-LABEL: @loop simulation
// REPORT: step time       3.000 ms
// REPORT: peak live       6.00 MB
// REPORT: memory bound    4.00 MB (at loop)

// Under 4.5 MB the weight stays in the pool and is fetched for the loop; the
// use inside the body reads the fetched copy.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: %[[W:[a-z0-9]+]]: !ho.remote<tensor<500000xf32>>
// CHECK: ho.compute "w2"
// CHECK: %[[F:.+]] = ho.prefetch %[[W]]
// CHECK: %[[T:.+]] = ho.await %[[F]]
// CHECK: scf.for
// CHECK-NEXT: ho.compute "mul"(%{{.+}}, %[[T]])
// CHECK: scf.yield
// CHECK: } {ho.offsets = array<i64: {{[0-9]+}}>}

// PLANNED: static allocator
// PLANNED: peak live       4.00 MB of a 4.50 MB budget
// PLANNED: out of memory   no

// Below what the loop needs at once, no schedule fits.
// TIGHT: error: loop: budget 3.50 MB is below what this op needs at once: 4.00 MB
func.func @loop(%x: tensor<250000xf32>, %w: tensor<500000xf32>)
    -> tensor<250000xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %big = ho.compute "w1"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<500000xf32>
  %b = ho.compute "w2"(%big) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<500000xf32>) -> tensor<250000xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %b)
      -> tensor<250000xf32> {
    %m = ho.compute "mul"(%acc, %w) {flops = 250000000 : i64, bytes = 0 : i64}
        : (tensor<250000xf32>, tensor<500000xf32>) -> tensor<250000xf32>
    scf.yield %m : tensor<250000xf32>
  } loc("loop")
  return %r : tensor<250000xf32>
}
