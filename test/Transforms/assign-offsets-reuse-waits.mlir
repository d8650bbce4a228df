// A static plan must not depend on a copy finishing in time. On the
// round-numbers target the 1 MB offload of %a takes 1 ms and "work" 2 ms,
// so %c (allocated after "work") can take %a's offset: the copy is done by
// then. The pass orders that reuse with an ho.wait_offload right before
// %c's op; at this speed it costs nothing, at a tenth of the bandwidth
// compute waits for the copy instead of writing over %a.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" \
// RUN:   | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json allocator=static" -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=NOMINAL
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" \
// RUN:   | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json hw-set=links.pool.bandwidth_gbps=0.1 allocator=static" -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=SLOW

// CHECK-LABEL: func.func @reuse
// CHECK:      %[[A:.*]] = ho.compute "produce"{{.*}}ho.offsets = array<i64: [[OFFSET:[0-9]+]]>
// CHECK-NEXT: %[[R:.*]] = ho.offload %[[A]]
// CHECK-NEXT: ho.compute "work"
// CHECK-NEXT: ho.wait_offload %[[R]]
// CHECK-NEXT: ho.compute "produce"{{.*}}ho.offsets = array<i64: [[OFFSET]]>
// NOMINAL: step time       2.000 ms
// NOMINAL: stalls          0.000 us in 0 stalls
// SLOW:    step time       10.000 ms
// SLOW:    stalls          8.000 ms in 1 stalls
// SLOW:    out of memory   no
func.func @reuse(%x: tensor<4xf32>) -> (!ho.remote<tensor<250000xf32>>, tensor<250000xf32>) {
  %a = ho.compute "produce"(%x) {flops = 0 : i64, bytes = 0 : i64} : (tensor<4xf32>) -> tensor<250000xf32>
  %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %w = ho.compute "work"(%x) {flops = 2000000000 : i64, bytes = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ho.compute "produce"(%w) {flops = 0 : i64, bytes = 0 : i64} : (tensor<4xf32>) -> tensor<250000xf32>
  return %r, %c : !ho.remote<tensor<250000xf32>>, tensor<250000xf32>
}
