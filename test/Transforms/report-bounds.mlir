// Lower bounds in the ho-report summary and metrics, on cases computed by
// hand. The round-numbers target computes 1e9 FLOPs in 1 ms and moves 1 MB
// over its pool link in 1 ms each way; the budget is 2.5 MB.
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json budget=2500000B json=%t.json" -o /dev/null | FileCheck %s
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json budget=2500000B hw-set=links.pool.bandwidth_to_device_gbps=0.5" -o /dev/null | FileCheck %s --check-prefix=HALF

// 3 MB are live at the third op, 0.5 MB over the budget: %a, which that op
// does not use, must leave the device and come back, 0.5 ms each way. The
// fetch is read by the last op, which computes for 1 ms after it lands:
// 1.5 ms to the device. Both hide behind 4 ms of compute. The op that needs
// the most at once reads 1 MB and writes 1 MB. But only %a can be away at
// the third op, and it moves whole: out once the first op has made it (1 ms
// to 2 ms), so the third op starts at 2 ms, and back once the third op has
// ended (3 ms to 4 ms), before the last op: the deadlines say 5 ms. As
// written, the function does not fit the budget, and beats that bound.
// CHECK-LABEL: @unplanned simulation
// CHECK:      out of memory   yes
// CHECK-NEXT: memory bound    2.00 MB (at layer 0 / c)
// CHECK-NEXT: time bound      4.000 ms (compute 4.000 ms; pool -> device 1.500 ms; device -> pool 500.000 us)
// CHECK-NEXT: deadline bound  5.000 ms
// CHECK-NEXT: gap to bound    -20.0% (the run did not fit the budget)
func.func @unplanned() {
  %a = ho.compute "k"() {flops = 1000000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %b = ho.compute "k"() {flops = 1000000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %c = ho.compute "k"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<250000xf32> loc("layer 0 / c")
  %z = ho.compute "k"(%a, %c) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
  return
}

// The same computation with all of %a offloaded and prefetched: transfers
// are a plan, not part of the computation, so the bounds are the same. The
// prefetch, issued after the third op, stalls the last one by 1 ms: 25% over
// the time bound, and on the deadline bound, which reports measure against.
// CHECK-LABEL: @planned simulation
// CHECK:      step time       5.000 ms
// CHECK:      out of memory   no
// CHECK:      memory bound    2.00 MB (at layer 0 / c)
// CHECK-NEXT: time bound      4.000 ms (compute 4.000 ms; pool -> device 1.500 ms; device -> pool 500.000 us)
// CHECK-NEXT: deadline bound  5.000 ms
// CHECK-NEXT: gap to bound    +0.0%{{$}}
func.func @planned() {
  %a = ho.compute "k"() {flops = 1000000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %ra = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %b = ho.compute "k"() {flops = 1000000000 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %c = ho.compute "k"(%b) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>) -> tensor<250000xf32> loc("layer 0 / c")
  %fa = ho.prefetch %ra : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %ta = ho.await %fa : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %z = ho.compute "k"(%ta, %c) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<250000xf32>) -> tensor<0xf32>
  return
}

// A used remote argument crosses its link at least once: 1 ms, exactly
// hidden behind 1 ms of compute, so the schedule meets the bound. At half
// the bandwidth the transfer bounds the step: 2 ms, met again.
// CHECK-LABEL: @hidden_prefetch simulation
// CHECK:      memory bound    1.00 MB (at {{.*}}report-bounds.mlir:[[# @LINE + 14]]:8)
// CHECK-NEXT: time bound      1.000 ms (compute 1.000 ms; pool -> device 1.000 ms)
// CHECK-NEXT: deadline bound  1.000 ms
// CHECK-NEXT: gap to bound    +0.0%{{$}}
// HALF-LABEL: @hidden_prefetch simulation
// HALF:      step time       2.000 ms
// HALF:      time bound      2.000 ms (compute 1.000 ms; pool -> device 2.000 ms)
// HALF-NEXT: deadline bound  2.000 ms
// HALF-NEXT: gap to bound    +0.0%{{$}}
func.func @hidden_prefetch(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %y = ho.compute "work"(%x) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %z = ho.compute "use"(%t, %y) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// The fetched weight is read by 1 ms of compute, and 1 ms more depends on
// that: no schedule ends before 1 ms of transfer and 2 ms of compute after
// it. Without that compute the transfer bound would be 1 ms, and the
// compute alone is 2.5 ms; this schedule meets the 3 ms bound. The work that
// does not depend on the read (0.5 ms, which hides the fetch in part) is not
// counted after it.
// CHECK-LABEL: @compute_after_fetch simulation
// CHECK:      step time       3.000 ms
// CHECK:      time bound      3.000 ms (compute 2.500 ms; pool -> device 3.000 ms)
// CHECK-NEXT: deadline bound  3.000 ms
// CHECK-NEXT: gap to bound    +0.0%{{$}}
// JSON-LABEL: "compute_after_fetch": {
// JSON:            "trailing_compute_s": 0.002
func.func @compute_after_fetch(%x: tensor<4xf32>, %r: !ho.remote<tensor<250000xf32>>) {
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %early = ho.compute "independent"(%x) {flops = 500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %y = ho.compute "read"(%t, %early) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  %short = ho.compute "short"(%y) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %long = ho.compute "long"(%y) {flops = 1000000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// The return needs nothing on the device: a plan may hand results over in
// a tier. The bound is what one op needs. Nothing takes time, so there is
// no gap to speak of.
// CHECK-LABEL: @results simulation
// CHECK:      memory bound    1.00 MB (at {{.*}}report-bounds.mlir:[[# @LINE + 5]]:8)
// CHECK-NEXT: time bound      0.000 us (compute 0.000 us)
// CHECK-NEXT: deadline bound  0.000 us
// CHECK-NEXT: gap to bound    n/a (the bound is zero)
func.func @results() -> (tensor<250000xf32>, tensor<250000xf32>) {
  %a = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %b = ho.compute "k"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  return %a, %b : tensor<250000xf32>, tensor<250000xf32>
}

// One op reads 2 MB and writes 2 MB: no schedule fits in 2.5 MB.
// CHECK-LABEL: @too_big simulation
// CHECK:      memory bound    4.00 MB (at {{.*}}report-bounds.mlir:[[# @LINE + 4]]:8), above the 2.50 MB budget: no schedule fits
// CHECK-NEXT: time bound      4.000 us (compute 4.000 us)
// CHECK-NEXT: gap to bound
func.func @too_big(%x: tensor<500000xf32>) -> tensor<500000xf32> {
  %y = ho.compute "k"(%x) : (tensor<500000xf32>) -> tensor<500000xf32>
  return %y : tensor<500000xf32>
}

// Keys are printed in order; functions too.
// JSON-LABEL: "planned": {
// JSON:        "lower_bounds": {
// JSON-NEXT:     "compute_time_s": 0.0040000000000000001,
// JSON-NEXT:     "deadline_time_s": 0.0050000000000000001,
// JSON-NEXT:     "fits_budget": true,
// JSON-NEXT:     "gap": 0,
// JSON-NEXT:     "memory_bytes": 2000000,
// JSON-NEXT:     "memory_location": "layer 0 / c",
// JSON-NEXT:     "memory_op": "ho.compute",
// JSON-NEXT:     "tighter_time_s": 0.0050000000000000001,
// JSON-NEXT:     "time_s": 0.0040000000000000001,
// JSON-NEXT:     "transfer_time_s": [
// JSON-NEXT:       {
// JSON-NEXT:         "bytes": 500000,
// JSON-NEXT:         "direction": "to-device",
// JSON-NEXT:         "tier": "pool",
// JSON-NEXT:         "time_s": 0.0015,
// JSON-NEXT:         "trailing_compute_s": 0.001
// JSON-NEXT:       },
// JSON-NEXT:       {
// JSON-NEXT:         "bytes": 500000,
// JSON-NEXT:         "direction": "from-device",
// JSON-NEXT:         "tier": "pool",
// JSON-NEXT:         "time_s": 0.00050000000000000001,
// JSON-NEXT:         "trailing_compute_s": 0
// JSON-NEXT:       }
// JSON-NEXT:     ]
// JSON-NEXT:   },
// JSON-LABEL: "results": {
// JSON:          "gap": null,
// JSON-LABEL: "too_big": {
// JSON:          "fits_budget": false,
// JSON:          "memory_bytes": 4000000,
// JSON:          "memory_op": "ho.compute",
// JSON:          "transfer_time_s": []
