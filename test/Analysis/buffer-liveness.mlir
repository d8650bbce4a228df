// Buffer liveness: sizes, live intervals, aliases and the memory profile.
// Points: 0 is entry, the i-th op is point i + 1, the last is exit.
// RUN: hyperoffload-opt %s --test-ho-buffer-liveness -split-input-file -o /dev/null | FileCheck %s

// Arguments live from entry to exit (the caller owns them); a returned value
// lives until exit; a value without uses dies where it is defined.
// CHECK-LABEL: @chain: exit point 5, peak 48 bytes at point 2
// CHECK-NEXT: buffer 0: %arg0, 16 bytes, live [0, 5]
// CHECK-NEXT: buffer 1: %0, 16 bytes, live [1, 2]
// CHECK-NEXT: buffer 2: %1, 16 bytes, live [2, 5]
// CHECK-NEXT: buffer 3: %2, 16 bytes, live [3, 3]
// CHECK-NEXT: profile: 16 32 48 48 32 32
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %dead = ho.compute "relu"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// A tied result and views of it share one buffer, which lives until the
// last use of any of them.
// CHECK-LABEL: @aliases: exit point 7
// CHECK-NEXT: buffer 0: %arg0, 1024 bytes, live [0, 7], aliases %0 %collapsed %extracted_slice
// CHECK-NEXT: buffer 1: %arg1, 16 bytes, live [0, 7]
// CHECK-NEXT: buffer 2: %1, 64 bytes, live [4, 5]
// CHECK-NEXT: buffer 3: %2, 64 bytes, live [5, 7]
func.func @aliases(%cache: tensor<16x16xf32>, %kv: tensor<1x4xf32>) -> tensor<16xf32> {
  %c = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
      : (tensor<16x16xf32>, tensor<1x4xf32>) -> tensor<16x16xf32>
  %flat = tensor.collapse_shape %c [[0, 1]] : tensor<16x16xf32> into tensor<256xf32>
  %row = tensor.extract_slice %flat[0] [16] [1] : tensor<256xf32> to tensor<16xf32>
  %y = ho.compute "scale"(%row) : (tensor<16xf32>) -> tensor<16xf32>
  %z = ho.compute "add"(%y, %row) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %z : tensor<16xf32>
}

// -----

// Destination-style ops write into their init: linalg outs reuse its buffer.
// CHECK-LABEL: @destination_style
// CHECK-NEXT: buffer 0: %arg0, 64 bytes, live [0, 4]
// CHECK-NEXT: buffer 1: %0, 64 bytes, live [1, 4], aliases %1
func.func @destination_style(%x: tensor<16xf32>) -> tensor<16xf32> {
  %init = tensor.empty() : tensor<16xf32>
  %y = linalg.add ins(%x, %x : tensor<16xf32>, tensor<16xf32>)
                  outs(%init : tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// Remote tensors take no device memory; a prefetch allocates its buffer when
// issued, and the awaited tensor lives in it.
// CHECK-LABEL: @transfers
// CHECK-NEXT: buffer 0: %arg0, 64 bytes, live [0, 6]
// CHECK-NEXT: buffer 1: %1, 64 bytes, live [2, 4], aliases %2
// CHECK-NEXT: buffer 2: %3, 64 bytes, live [4, 6]
// CHECK-NEXT: profile: 64 64 128 128 192 128 128
func.func @transfers(%x: tensor<16xf32>, %r: !ho.remote<tensor<16xf32>>)
    -> (!ho.remote<tensor<16xf32>>, tensor<16xf32>) {
  %back = ho.offload %x : tensor<16xf32> -> !ho.remote<tensor<16xf32>>
  %f = ho.prefetch %r : !ho.remote<tensor<16xf32>> -> !ho.future<tensor<16xf32>>
  %t = ho.await %f : !ho.future<tensor<16xf32>> -> tensor<16xf32>
  %y = ho.compute "relu"(%t) : (tensor<16xf32>) -> tensor<16xf32>
  return %back, %y : !ho.remote<tensor<16xf32>>, tensor<16xf32>
}

// -----

// Sizes round up to the allocation granularity.
// RUN: hyperoffload-opt %s --test-ho-buffer-liveness=granularity=512 -split-input-file -o /dev/null | FileCheck %s --check-prefix=GRANULE
// GRANULE-LABEL: @granularity
// GRANULE-NEXT: buffer 0: %arg0, 512 bytes
// GRANULE-NEXT: buffer 1: %0, 1024 bytes
func.func @granularity(%x: tensor<3xf32>) -> tensor<129xf32> {
  %y = ho.compute "expand"(%x) : (tensor<3xf32>) -> tensor<129xf32>
  return %y : tensor<129xf32>
}

// -----

// A dynamically shaped tensor cannot be placed; it is reported, not guessed.
// CHECK-LABEL: @unsized
// CHECK: unsized: %arg0
func.func @unsized(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
