// RUN: hyperoffload-opt %s --ho-synthesize-kernels="time-scale=1000" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-synthesize-kernels="time-scale=1000 hw=h200-pcie5" | FileCheck %s --check-prefix=H200
// RUN: not hyperoffload-opt %s --ho-synthesize-kernels="time-scale=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// With a time scale, a kernel reads the clock before its loops and waits,
// after them, until 1000 times the op's modelled time on the target has
// passed: 1000 x (2 GFLOP at 376 TFLOP/s, plus the 5 us launch) = 10.319 ms
// on the default Ascend 910C, 1000 x (2 GFLOP at 989 TFLOP/s plus 5 us) =
// 7.022 ms on an H200.
// CHECK: func.func private @ho_wait_until_ns(i64)
// CHECK: func.func private @ho_clock_ns() -> i64
// CHECK-LABEL: func.func @matmul
// CHECK: %[[START:.*]] = call @ho_clock_ns() : () -> i64
// CHECK: linalg.generic
// CHECK: %[[SPAN:.*]] = arith.constant 10319149 : i64
// CHECK: %[[END:.*]] = arith.addi %[[START]], %[[SPAN]] : i64
// CHECK: call @ho_wait_until_ns(%[[END]]) : (i64) -> ()
// CHECK-NEXT: return
// H200: arith.constant 7022245 : i64
// H200-NEXT: arith.addi
// H200-NEXT: call @ho_wait_until_ns
// NEGATIVE: error: {{.*}}.mlir: time-scale must be 0 or more, got -1
func.func @matmul(%x: tensor<4x8xbf16>, %w: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  %y = ho.compute "matmul"(%x, %w) {flops = 2000000000 : i64} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  return %y : tensor<4x2xbf16>
}
