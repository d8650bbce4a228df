// ho-verify-schedule on cases computed by hand. The round-numbers target
// moves 1 MB over its pool link in 1 ms and computes 1e9 FLOPs in 1 ms;
// tensor<250000xf32> is 1 MB.
// RUN: hyperoffload-opt %s --ho-verify-schedule="hw=%S/Inputs/round-numbers.json" -split-input-file -verify-diagnostics -o /dev/null

// A correct round trip: 1.5 ms of compute covers the 1 ms offload before
// the prefetch, and 1.5 ms more covers the prefetch before its await.
// Reading %x after offloading it is fine: the offload only copies it.
func.func @round_trip(%x: tensor<250000xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %r = ho.offload %x : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %y = ho.compute "work"(%x, %w) {flops = 1500000000 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %z = ho.compute "work"(%y) {flops = 1500000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  %g = ho.compute "use"(%t, %z) {flops = 0 : i64, bytes = 0 : i64}
      : (tensor<250000xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// A function without transfers that fits the budget has nothing to check.
func.func @no_transfers(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The prefetch is issued 0.4 ms after the offload of its source, which
// takes 1 ms: it would read a copy that is still being written.
func.func @premature_prefetch(%x: tensor<250000xf32>, %w: tensor<4xf32>) -> tensor<250000xf32> {
  // expected-note @below {{the offload of its source is issued here}}
  %r = ho.offload %x : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %y = ho.compute "work"(%w) {flops = 400000000 : i64, bytes = 0 : i64}
      : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @below {{prefetch starts at 400 us, before the offload of its source completes at 1000 us; it would read a copy that has not arrived; issue it after at least 600 us more of compute}}
  %f = ho.prefetch %r : !ho.remote<tensor<250000xf32>> -> !ho.future<tensor<250000xf32>>
  %t = ho.await %f : !ho.future<tensor<250000xf32>> -> tensor<250000xf32>
  return %t : tensor<250000xf32>
}

// -----

// kv_append writes the new cache into the old cache's buffer, so %cache no
// longer holds the old contents when relu reads it.
func.func @read_after_tied_write(%cache: tensor<16xf32>, %kv: tensor<1xf32>) -> tensor<16xf32> {
  // expected-note @below {{the buffer is overwritten here}}
  %cache2 = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
      : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
  // expected-error @below {{operand #0 is read after its buffer was overwritten in place; read it before the overwrite, or give the overwriting result a buffer of its own}}
  %y = ho.compute "relu"(%cache) : (tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// Tensor IR has value semantics: an init that is read again later is not
// written in place. The insert gets a buffer of its own, as one-shot
// bufferization gives it, and the old value and its view stay readable.
func.func @read_after_dps_init(%dest: tensor<16xf32>, %row: tensor<4xf32>) -> (tensor<16xf32>, tensor<4xf32>) {
  %view = tensor.extract_slice %dest[0] [4] [1] : tensor<16xf32> to tensor<4xf32>
  %new = tensor.insert_slice %row into %dest[4] [4] [1] : tensor<4xf32> into tensor<16xf32>
  return %new, %view : tensor<16xf32>, tensor<4xf32>
}

// -----

// Reading the tied operand before the in-place write, and the result after
// it, is the intended use.
func.func @read_before_tied_write(%cache: tensor<16xf32>, %kv: tensor<1xf32>) -> tensor<16xf32> {
  %y = ho.compute "relu"(%cache) : (tensor<16xf32>) -> tensor<16xf32>
  %cache2 = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
      : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
  %z = ho.compute "add"(%cache2, %y) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return %z : tensor<16xf32>
}

// -----

// Nothing awaits the future: the copy runs for nothing and its device
// buffer is never released.
func.func @never_awaited(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{never awaited: the transfer is wasted and its buffer never released; await its future before the data is needed, or remove the prefetch}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  return
}

// -----

// Passing the future to another function does not count as awaiting it.
func.func private @consume(!ho.future<tensor<4xf32>>)

func.func @passed_on(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{never awaited}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  // expected-note @below {{the future is passed on here, which does not count as an await: only an ho.await in this function, or returning the future to the caller, completes the transfer}}
  // expected-error @below {{passes a future (operand #0) to a call: a transfer's handle lives in the function that issued it; await it first}}
  func.call @consume(%f) : (!ho.future<tensor<4xf32>>) -> ()
  return
}

// -----

// Returning the future hands it to the caller, which awaits it.
func.func @returned(%r: !ho.remote<tensor<4xf32>>) -> !ho.future<tensor<4xf32>> {
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  return %f : !ho.future<tensor<4xf32>>
}

// -----

// A static plan whose %a and %c never live at the same time may share
// offset 0, below the argument at 32.
func.func @planned(%x: tensor<4xf32> {ho.offset = 32 : i64}) -> tensor<4xf32> {
  %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %b = ho.compute "relu"(%a) {ho.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
  %c = ho.compute "relu"(%b) {ho.offsets = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// %a is placed 8 bytes into the argument, which is live for the whole call.
// The error comes out once, from the static allocator.
func.func @overlap(%x: tensor<4xf32> {ho.offset = 0 : i64}) -> tensor<4xf32> {
  // expected-note @above {{the live buffer (16 bytes) is defined here}}
  // expected-error @below {{buffer at offset 8 (16 bytes) overlaps a buffer that is still live}}
  %a = ho.compute "relu"(%x) {ho.offsets = array<i64: 8>} : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// A plan that leaves out one buffer is incomplete.
func.func @missing_offset(%x: tensor<4xf32> {ho.offset = 0 : i64}) -> tensor<4xf32> {
  // expected-error @below {{the static allocator needs an offset for this buffer (16 bytes)}}
  %a = ho.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// Several violations in one function are all reported.
func.func @several(%cache: tensor<16xf32>, %kv: tensor<1xf32>, %r: !ho.remote<tensor<4xf32>>) -> tensor<16xf32> {
  // expected-error @below {{never awaited}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  // expected-note @below {{the buffer is overwritten here}}
  %cache2 = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 0>}
      : (tensor<16xf32>, tensor<1xf32>) -> tensor<16xf32>
  // expected-error @below {{operand #0 is read after its buffer was overwritten in place}}
  return %cache : tensor<16xf32>
}
