// ho-report on cases computed by hand. The round-numbers target computes
// 1e9 FLOPs in 1 ms and moves 1 MB over its pool link in 1 ms.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json" -o /dev/null | FileCheck %s
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json hw-set=links.pool.bandwidth_to_device_gbps=0.5" -o /dev/null | FileCheck %s --check-prefix=HALF
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json json=%t.json trace=%t.trace.json" -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t.trace.json --check-prefix=TRACE
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json output=%t.txt" | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --input-file=%t.txt

// A 1 MB prefetch is issued before 1 ms of compute and awaited after it: it
// is exactly hidden. At half the bandwidth it takes 2 ms and the await waits
// 1 ms.
// CHECK-LABEL: @hidden_prefetch simulation on round-numbers: as-written, caching allocator
// CHECK-NEXT: step time       1.000 ms
// CHECK-NEXT: compute         1.000 ms (100.0% of the step)
// CHECK-NEXT: stalls          0.000 us in 0 stalls (0.0%)
// CHECK:      peak live       1.00 MB of a 1.07 GB budget
// CHECK:      traffic         pool -> device   1.00 MB in 1 transfers
// HALF-LABEL: @hidden_prefetch
// HALF-NEXT: step time       2.000 ms
// HALF-NEXT: compute         1.000 ms (50.0% of the step)
// HALF-NEXT: stalls          1.000 ms in 1 stalls (50.0%)
// IR: func.func @hidden_prefetch
func.func @hidden_prefetch(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %y = ho.compute "work"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32> loc("layer 0 / work")
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %z = ho.compute "use"(%t, %y) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// JSON: "functions": {
// JSON:   "hidden_prefetch": {
// JSON:     "allocator": "caching",
// JSON:     "allocator_stalls": 0,
// JSON:     "lower_bounds": {
// JSON-NEXT:  "compute_time_s": 0.001,
// JSON-NEXT:  "deadline_time_s": 0.001,
// JSON-NEXT:  "fits_budget": true,
// JSON-NEXT:  "gap": 0,
// JSON-NEXT:  "memory_bytes": 1000032,
// JSON-NEXT:  "memory_location": "{{.*}}report.mlir:30:8",
// JSON-NEXT:  "memory_op": "ho.compute",
// JSON-NEXT:  "tighter_time_s": 0.001,
// JSON-NEXT:  "time_s": 0.001,
// JSON-NEXT:  "transfer_time_s": [
// JSON-NEXT:    {
// JSON-NEXT:      "bytes": 1000000,
// JSON-NEXT:      "direction": "to-device",
// JSON-NEXT:      "tier": "pool",
// JSON-NEXT:      "time_s": 0.001
// JSON:     "mode": "as-written",
// The caching allocator counts whole 512-byte blocks.
// JSON:     "peak_live_bytes": 1001984,
// JSON:     "stall_count": 0,
// JSON:     "step_time_s": 0.001,
// JSON:     "target": "round-numbers",
// JSON:     "traffic": [
// JSON:         "bytes": 1000000,
// JSON:         "direction": "to-device",
// JSON:         "tier": "pool",
// JSON:         "transfers": 1

// One track per stream and link direction, the memory as a counter.
// TRACE-DAG: "name": "thread_name"
// TRACE-DAG: "name": "compute"
// TRACE-DAG: "name": "pool -> device"
// TRACE-DAG: "name": "layer 0 / work"
// TRACE-DAG: "ph": "X"
// TRACE-DAG: "ph": "C"
// TRACE-DAG: "live_bytes": 1001984
// TRACE-DAG: "name": "@hidden_prefetch"
