// ho-assign-offsets gives every device buffer an offset in one arena, such
// that buffers live at the same time do not overlap. Running it again on its
// own output gives the same plan.
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" -split-input-file | FileCheck %s
// RUN: hyperoffload-opt %s --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" -split-input-file \
// RUN:   | hyperoffload-opt --ho-assign-offsets="hw=%S/Inputs/round-numbers.json" -split-input-file | FileCheck %s

// Four buffers of 16 bytes (round-numbers allocates to the byte). The
// argument lives throughout; %a is dead once %c is defined, so %c takes the
// hole %a left at 16.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:    %{{.+}}: tensor<4xf32> {ho.offset = 0 : i64}
// CHECK-SAME:    attributes {ho.arena_size = 48 : i64}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 16>}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 32>}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 16>}
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = ho.compute "relu"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// Only results with a buffer of their own get an offset: the tied result
// lives in the cache's buffer (-1) and the view in that of its source (no
// attribute at all).
// CHECK-LABEL: func.func @views_and_tied
// CHECK-SAME:    {ho.offset = 0 : i64}
// CHECK-SAME:    {ho.offset = 64 : i64}
// CHECK-SAME:    attributes {ho.arena_size = 96 : i64}
// CHECK:         ho.compute "append_with_norm"({{.+}}) {ho.offsets = array<i64: -1, 80>, tied_operands = array<i64: 0, -1>}
// CHECK:         tensor.collapse_shape
// CHECK-NOT:     ho.offsets
// CHECK:         return
func.func @views_and_tied(%cache: tensor<4x4xf32>, %kv: tensor<4xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %c, %n = ho.compute "append_with_norm"(%cache, %kv) {tied_operands = array<i64: 0, -1>}
      : (tensor<4x4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  %flat = tensor.collapse_shape %c [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  return %flat, %n : tensor<16xf32>, tensor<4xf32>
}

// -----

// A prefetched tensor lives in its future's buffer from the prefetch on: the
// offset goes on the ho.prefetch, none on the await. The remote argument
// takes no device memory.
// CHECK-LABEL: func.func @prefetched
// CHECK-SAME:    %{{.+}}: tensor<4xf32> {ho.offset = 0 : i64}
// CHECK-SAME:    %{{[^:]+}}: !ho.remote<tensor<4xf32>>)
// CHECK-SAME:    attributes {ho.arena_size = 48 : i64}
// CHECK:         ho.prefetch %{{.+}} {ho.offsets = array<i64: 16>}
// CHECK-NOT:     ho.offsets
// CHECK:         ho.compute "add"({{.+}}) {ho.offsets = array<i64: 32>}
func.func @prefetched(%x: tensor<4xf32>, %r: !ho.remote<tensor<4xf32>>) -> tensor<4xf32> {
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
  %y = ho.compute "add"(%x, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The last use of %a is its offload, so a liveness by program points would
// let %b reuse offset 0. But the 1 MB copy takes 1 ms and %b is defined
// 1 us later: %a stays allocated until the copy completes, and %b must go
// elsewhere.
// CHECK-LABEL: func.func @offload_in_flight
// CHECK-SAME:    {ho.offset = 2000000 : i64}
// CHECK-SAME:    attributes {ho.arena_size = 2000016 : i64}
// CHECK:         %[[A:.+]] = ho.compute "fill"(%{{.+}}) {ho.offsets = array<i64: 0>}
// CHECK:         ho.offload %[[A]] :
// CHECK:         ho.compute "fill"(%{{.+}}) {ho.offsets = array<i64: 1000000>}
func.func @offload_in_flight(%w: tensor<4xf32>) -> (!ho.remote<tensor<250000xf32>>, tensor<250000xf32>) {
  %a = ho.compute "fill"(%w) : (tensor<4xf32>) -> tensor<250000xf32>
  %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %b = ho.compute "fill"(%w) : (tensor<4xf32>) -> tensor<250000xf32>
  return %r, %b : !ho.remote<tensor<250000xf32>>, tensor<250000xf32>
}

// -----

// The same, with 2 ms of compute before %b: the copy has completed and %a
// has been freed, so %b reuses its offset.
// CHECK-LABEL: func.func @offload_completed
// CHECK-SAME:    {ho.offset = 1000000 : i64}
// CHECK-SAME:    attributes {ho.arena_size = 1000032 : i64}
// CHECK:         ho.compute "fill"(%{{.+}}) {ho.offsets = array<i64: 0>}
// CHECK:         ho.compute "work"(%{{.+}}) {flops = 2000000000 : i64, ho.offsets = array<i64: 1000016>}
// CHECK:         ho.compute "fill"(%{{.+}}) {ho.offsets = array<i64: 0>}
func.func @offload_completed(%w: tensor<4xf32>) -> (!ho.remote<tensor<250000xf32>>, tensor<250000xf32>) {
  %a = ho.compute "fill"(%w) : (tensor<4xf32>) -> tensor<250000xf32>
  %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %y = ho.compute "work"(%w) {flops = 2000000000 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "fill"(%w) : (tensor<4xf32>) -> tensor<250000xf32>
  return %r, %b : !ho.remote<tensor<250000xf32>>, tensor<250000xf32>
}

// -----

// A plan from an earlier run is replaced: offsets on ops that no longer
// define a buffer and on arguments that no longer take device memory go
// away, the others are recomputed. Other attributes stay.
// CHECK-LABEL: func.func @stale_plan
// CHECK-SAME:    %{{.+}}: tensor<4xf32> {ho.offset = 0 : i64, ho.role = "weight"}
// CHECK-SAME:    %{{[^:]+}}: !ho.remote<tensor<4xf32>>)
// CHECK-SAME:    attributes {ho.arena_size = 32 : i64}
// CHECK:         ho.compute "relu"(%{{.+}}) {ho.offsets = array<i64: 16>}
// CHECK:         tensor.expand_shape
// CHECK-NOT:     ho.offset
// CHECK:         return
func.func @stale_plan(%x: tensor<4xf32> {ho.offset = 64 : i64, ho.role = "weight"},
                      %r: !ho.remote<tensor<4xf32>> {ho.offset = 8 : i64}) -> tensor<2x2xf32>
    attributes {ho.arena_size = 4096 : i64} {
  %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 128>} : (tensor<4xf32>) -> tensor<4xf32>
  %v = tensor.expand_shape %a [[0, 1]] output_shape [2, 2] {ho.offsets = array<i64: 256>} : tensor<4xf32> into tensor<2x2xf32>
  return %v : tensor<2x2xf32>
}
