// A plan from ho-assign-offsets runs on the static allocator as it is: no
// buffer misses an offset, no two live buffers overlap, nothing compacts,
// and the footprint is the arena size.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" \
// RUN:   | hyperoffload-opt --ho-report="hw=%S/Inputs/round-numbers.json allocator=static output=/dev/null json=-" \
// RUN:   | FileCheck %s

// The same on a generated training step, with the footprint compared to the
// arena the pass wrote rather than to a number.
// RUN: hyperoffload model emit llama3-tiny --mode train \
// RUN:   | hyperoffload-opt --ho-assign-offsets \
// RUN:   | hyperoffload-opt --ho-report="allocator=static output=/dev/null json=-" \
// RUN:   | FileCheck %s --check-prefix=MODEL

// MODEL:      "allocator_stalls": 0,
// MODEL:      "peak_footprint_bytes": [[ARENA:[0-9]+]],
// MODEL:      func.func @llama3_tiny_train
// MODEL-SAME: attributes {ho.arena_size = [[ARENA]] : i64}

// The metrics come first, functions by name; then the IR.
// CHECK:      "fragmented": {
// CHECK:        "allocator_stalls": 0,
// CHECK:        "peak_footprint_bytes": 112,
// CHECK:        "peak_live_bytes": 80,
// CHECK:      "offload_in_flight": {
// CHECK:        "allocator_stalls": 0,
// CHECK:        "peak_footprint_bytes": 2000016,
// CHECK:        "peak_live_bytes": 2000016,

// Placed largest first, %0 and %3 share offset 0 and %1 goes above %0; %2
// must avoid both %1 and %3 and lands at 80. The best layout needs 80
// bytes (%2 at 0, %3 at 32): the greedy plan pays 40% of fragmentation,
// which the static allocator reports as footprint.
// CHECK-LABEL: func.func @fragmented
// CHECK-SAME:    attributes {ho.arena_size = 112 : i64}
// CHECK:         ho.compute "init"() {ho.offsets = array<i64: 0>}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 48>}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 80>}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 0>}
func.func @fragmented() -> tensor<12xf32> {
  %0 = ho.compute "init"() : () -> tensor<12xf32>
  %1 = ho.compute "relu"(%0) : (tensor<12xf32>) -> tensor<8xf32>
  %2 = ho.compute "relu"(%1) : (tensor<8xf32>) -> tensor<8xf32>
  %3 = ho.compute "relu"(%2) : (tensor<8xf32>) -> tensor<12xf32>
  return %3 : tensor<12xf32>
}

// %a is still being copied out when %b is allocated: the static allocator
// would report an overlap if %b had been given %a's offset.
// CHECK-LABEL: func.func @offload_in_flight
// CHECK-SAME:    attributes {ho.arena_size = 2000016 : i64}
func.func @offload_in_flight(%w: tensor<4xf32>) -> (!ho.remote<tensor<250000xf32>>, tensor<250000xf32>) {
  %a = ho.compute "fill"(%w) : (tensor<4xf32>) -> tensor<250000xf32>
  %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %b = ho.compute "fill"(%w) : (tensor<4xf32>) -> tensor<250000xf32>
  return %r, %b : !ho.remote<tensor<250000xf32>>, tensor<250000xf32>
}
