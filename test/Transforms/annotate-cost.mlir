// ho-annotate-cost attaches the roofline estimate of every op that does work.
// RUN: hyperoffload-opt %s --ho-annotate-cost="hw=%S/Inputs/round-numbers.json" | FileCheck %s

// CHECK-LABEL: func.func @annotate
func.func @annotate(%x: tensor<1000x1000xf32>, %w: tensor<1000x1000xf32>,
                    %r: !ho.remote<tensor<4xf32>>) -> tensor<1000x1000xf32> {
  // 2e9 FLOPs at 1 TFLOP/s: 2 ms; 12 MB at 1 TB/s is only 12 us.
  // CHECK: ho.compute "matmul"
  // CHECK-SAME: ho.cost = {bytes = 12000000 : i64, flops = 2000000000 : i64, seconds = 2.000000e-03 : f64, source = "interface"}
  %y = ho.compute "matmul"(%x, %w)
      : (tensor<1000x1000xf32>, tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  // No cost model: the bytes it touches over HBM bandwidth (12 MB: 12 us).
  // CHECK: arith.addf
  // CHECK-SAME: ho.cost = {bytes = 12000000 : i64, flops = 0 : i64, seconds = 1.200000e-05 : f64, source = "bytes-estimate"}
  %z = arith.addf %y, %x : tensor<1000x1000xf32>
  // Collectives: bytes over the interconnect (1 GB/s): 8 MB in 8 ms.
  // CHECK: ho.compute "allreduce"
  // CHECK-SAME: source = "collective"
  %s = ho.compute "allreduce"(%z) : (tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  // Transfers and terminators do no compute work.
  // CHECK: ho.prefetch
  // CHECK-NOT: ho.cost
  // CHECK-SAME: -> !ho.future
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
  return %s : tensor<1000x1000xf32>
}

// The example of the pass documentation, on a preset: launch overhead (5 us)
// dominates a small matmul.
// RUN: hyperoffload-opt %s --ho-annotate-cost="hw=h200-pcie5" | FileCheck %s --check-prefix=H200
// H200-LABEL: func.func @documented
// H200: ho.cost = {bytes = 360448 : i64, flops = 16777216 : i64, seconds = 5.0750933333333331E-6 : f64, source = "interface"}
func.func @documented(%x: tensor<64x512xbf16>, %w: tensor<512x256xbf16>) -> tensor<64x256xbf16> {
  %y = ho.compute "matmul"(%x, %w) : (tensor<64x512xbf16>, tensor<512x256xbf16>) -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
