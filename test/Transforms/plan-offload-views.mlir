// Views across a gap: a view reads no data, so the plan moves the whole
// buffer behind it and remakes the view on the fetched copy; an argument
// only handed back stays in the tier. Round-numbers target:
// tensor<250000xf32> is 1 MB.
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=8MB" | FileCheck %s

// A cache written in place and the slice of it that attention reads both
// carry the cache across the expand/reduce peak: the whole cache leaves,
// and the slice is remade on the copy that comes back.
// CHECK-LABEL: func.func @cache
// CHECK-SAME: -> (tensor<250000xf32>, !ho.remote<tensor<4x250000xf32>>)
// CHECK: %[[WRITTEN:.*]] = tensor.insert_slice
// CHECK: %[[STORED:.*]] = ho.offload %[[WRITTEN]] : tensor<4x250000xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK: ho.compute "reduce"
// CHECK: %[[FETCH:.*]] = ho.prefetch %[[STORED]]
// CHECK: %[[CACHE:.*]] = ho.await %[[FETCH]]
// CHECK: %[[LIVE:.*]] = tensor.extract_slice %[[CACHE]][0, 0] [2, 250000]
// CHECK: %[[BACK:.*]] = ho.offload %[[CACHE]]
// CHECK: %[[OUT:.*]] = ho.compute "attend"(%[[LIVE]],
// CHECK: return %[[OUT]], %[[BACK]]
func.func @cache(%x: tensor<250000xf32>, %cache: tensor<4x250000xf32>, %row: tensor<1x250000xf32>)
    -> (tensor<250000xf32>, tensor<4x250000xf32>) {
  %c = tensor.insert_slice %row into %cache[3, 0] [1, 250000] [1, 1] : tensor<1x250000xf32> into tensor<4x250000xf32>
  %live = tensor.extract_slice %c[0, 0] [2, 250000] [1, 1] : tensor<4x250000xf32> to tensor<2x250000xf32>
  %a = ho.compute "relu"(%x) {flops = 1000000000 : i64} : (tensor<250000xf32>) -> tensor<250000xf32>
  %b = ho.compute "expand"(%a) {flops = 4000000000 : i64} : (tensor<250000xf32>) -> tensor<4x250000xf32>
  %d = ho.compute "reduce"(%b) {flops = 4000000000 : i64} : (tensor<4x250000xf32>) -> tensor<250000xf32>
  %s = ho.compute "attend"(%live, %d) {flops = 2000000000 : i64} : (tensor<2x250000xf32>, tensor<250000xf32>) -> tensor<250000xf32>
  return %s, %c : tensor<250000xf32>, tensor<4x250000xf32>
}

// A reshape of a result made before the gap and its reshape back after it:
// the result is stored, and both reshapes are remade on the fetched copy.
// CHECK-LABEL: func.func @reshaped
// CHECK: %[[T:.*]] = ho.compute "relu"
// CHECK: %[[STORED:.*]] = ho.offload %[[T]]
// CHECK-NOT: tensor.collapse_shape
// CHECK: ho.compute "reduce"
// CHECK: %[[FETCH:.*]] = ho.prefetch %[[STORED]]
// CHECK: %[[COPY:.*]] = ho.await %[[FETCH]]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[COPY]]
// CHECK: %[[SHAPED:.*]] = tensor.expand_shape %[[FLAT]]
// CHECK-NOT: tensor.collapse_shape
// CHECK: ho.compute "add"(%[[SHAPED]],
func.func @reshaped(%x: tensor<500x500xf32>) -> tensor<500x500xf32> {
  %t = ho.compute "relu"(%x) {flops = 1000000000 : i64} : (tensor<500x500xf32>) -> tensor<500x500xf32>
  %flat = tensor.collapse_shape %t [[0, 1]] : tensor<500x500xf32> into tensor<250000xf32>
  %b = ho.compute "expand"(%x) {flops = 7000000000 : i64} : (tensor<500x500xf32>) -> tensor<7x250000xf32>
  %d = ho.compute "reduce"(%b) {flops = 7000000000 : i64} : (tensor<7x250000xf32>) -> tensor<500x500xf32>
  %back = tensor.expand_shape %flat [[0, 1]] output_shape [500, 500] : tensor<250000xf32> into tensor<500x500xf32>
  %s = ho.compute "add"(%back, %d) {flops = 1000000000 : i64} : (tensor<500x500xf32>, tensor<500x500xf32>) -> tensor<500x500xf32>
  return %s : tensor<500x500xf32>
}

// An argument only handed back is never fetched: the caller gets its own
// copy in the tier back.
// CHECK-LABEL: func.func @passthrough
// CHECK-SAME: (%[[A:.*]]: !ho.remote<tensor<2250000xf32>> {ho.placed_by_plan}) -> !ho.remote<tensor<2250000xf32>>
// CHECK-NEXT: return %[[A]] : !ho.remote<tensor<2250000xf32>>
func.func @passthrough(%a: tensor<2250000xf32>) -> tensor<2250000xf32> {
  return %a : tensor<2250000xf32>
}
