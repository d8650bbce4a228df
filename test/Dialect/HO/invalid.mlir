// Every verifier error of the ho dialect, one case each.
// RUN: hyperoffload-opt %s -split-input-file -verify-diagnostics

// A remote tensor's size must be known: no dynamic dimensions.
// expected-error @below {{!ho.remote needs a statically shaped tensor, but got 'tensor<?x8xf32>': the size of the copy must be known}}
func.func @remote_dynamic(%a: !ho.remote<tensor<?x8xf32>>)

// -----

// expected-error @below {{!ho.remote needs a ranked tensor, but got 'tensor<*xf32>': the size of the copy must be known}}
func.func @remote_unranked(%a: !ho.remote<tensor<*xf32>>)

// -----

// expected-error @below {{!ho.future needs a statically shaped tensor, but got 'tensor<4x?xbf16>'}}
func.func @future_dynamic(%a: !ho.future<tensor<4x?xbf16>>)

// -----

// expected-error @below {{!ho.remote needs an element type of fixed width, but got '!ho.future<tensor<2xf32>>'}}
func.func @remote_opaque_element(%a: !ho.remote<tensor<4x!ho.future<tensor<2xf32>>>>)

// -----

// expected-error @below {{expected ::mlir::ho::MemoryTier to be one of: pool, host, disk}}
// expected-error @below {{failed to parse HO_RemoteType parameter 'tier'}}
func.func @remote_unknown_tier(%a: !ho.remote<tensor<4xf32>, hbm>)

// -----

func.func @offload_element_type(%t: tensor<4x8xf32>) {
  // expected-error @below {{'ho.offload' op element type mismatch: the source has 'f32' but the remote result has 'bf16'}}
  %r = ho.offload %t : tensor<4x8xf32> -> !ho.remote<tensor<4x8xbf16>>
  return
}

// -----

func.func @offload_shape(%t: tensor<4x8xf32>) {
  // expected-error @below {{'ho.offload' op shape mismatch: the source is 'tensor<4x8xf32>' but the remote result is 'tensor<8x4xf32>'}}
  %r = ho.offload %t : tensor<4x8xf32> -> !ho.remote<tensor<8x4xf32>>
  return
}

// -----

func.func @offload_dynamic(%t: tensor<?x8xf32>) {
  // expected-error @below {{'ho.offload' op cannot transfer the source of type 'tensor<?x8xf32>': its size is unknown because its shape is dynamic}}
  %r = ho.offload %t : tensor<?x8xf32> -> !ho.remote<tensor<4x8xf32>>
  return
}

// -----

func.func @offload_unranked(%t: tensor<*xf32>) {
  // expected-error @below {{'ho.offload' op cannot transfer the source of type 'tensor<*xf32>': its size is unknown because its shape is unranked}}
  %r = ho.offload %t : tensor<*xf32> -> !ho.remote<tensor<4xf32>>
  return
}

// -----

func.func @offload_encoding(%t: tensor<4xf32, "sparse">) {
  // expected-error @below {{'ho.offload' op encoding mismatch: the source is 'tensor<4xf32, "sparse">' but the remote result is 'tensor<4xf32>'}}
  %r = ho.offload %t : tensor<4xf32, "sparse"> -> !ho.remote<tensor<4xf32>>
  return
}

// -----

func.func @offload_to_future(%t: tensor<4xf32>) {
  // expected-error @below {{'ho.offload' op result #0 must be remote tensor, but got '!ho.future<tensor<4xf32>>'}}
  %r = ho.offload %t : tensor<4xf32> -> !ho.future<tensor<4xf32>>
  return
}

// -----

func.func @prefetch_element_type(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{'ho.prefetch' op element type mismatch: the future result has 'f16' but the remote source has 'f32'}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf16>>
  return
}

// -----

func.func @prefetch_shape(%r: !ho.remote<tensor<4xf32>, host>) {
  // expected-error @below {{'ho.prefetch' op shape mismatch: the future result is 'tensor<2x2xf32>' but the remote source is 'tensor<4xf32>'}}
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>, host> -> !ho.future<tensor<2x2xf32>>
  return
}

// -----

func.func @prefetch_device_tensor(%t: tensor<4xf32>) {
  // expected-error @below {{'ho.prefetch' op operand #0 must be remote tensor, but got 'tensor<4xf32>'}}
  %f = "ho.prefetch"(%t) : (tensor<4xf32>) -> !ho.future<tensor<4xf32>>
  return
}

// -----

func.func @await_element_type(%f: !ho.future<tensor<4xf32>>) {
  // expected-error @below {{'ho.await' op element type mismatch: the result has 'i32' but the future has 'f32'}}
  %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xi32>
  return
}

// -----

func.func @await_shape(%f: !ho.future<tensor<4xf32>>) {
  // expected-error @below {{'ho.await' op shape mismatch: the result is 'tensor<1x4xf32>' but the future is 'tensor<4xf32>'}}
  %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<1x4xf32>
  return
}

// -----

func.func @await_dynamic(%f: !ho.future<tensor<4xf32>>) {
  // expected-error @below {{'ho.await' op cannot transfer the result of type 'tensor<?xf32>': its size is unknown because its shape is dynamic}}
  %t = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<?xf32>
  return
}

// -----

func.func @await_twice(%r: !ho.remote<tensor<4xf32>>) {
  %f = ho.prefetch %r : !ho.remote<tensor<4xf32>> -> !ho.future<tensor<4xf32>>
  // expected-note @below {{first awaited here}}
  %t0 = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
  // expected-error @below {{'ho.await' op awaits a future that is already awaited; each prefetch is awaited exactly once}}
  %t1 = ho.await %f : !ho.future<tensor<4xf32>> -> tensor<4xf32>
  return
}

// -----

func.func @negative_flops(%x: tensor<4xf32>) {
  // expected-error @below {{'ho.compute' op cost hint 'flops' must be non-negative, but is -5}}
  %y = ho.compute "relu"(%x) {flops = -5 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_bytes(%x: tensor<4xf32>) {
  // expected-error @below {{'ho.compute' op cost hint 'bytes' must be non-negative, but is -1}}
  %y = ho.compute "relu"(%x) {bytes = -1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tied_count(%x: tensor<4xf32>) {
  // expected-error @below {{'ho.compute' op has 2 tied_operands entries but 1 results: give one entry per result, -1 for a result with its own buffer}}
  %y = ho.compute "relu"(%x) {tied_operands = array<i64: 0, -1>}
      : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tied_out_of_range(%x: tensor<4xf32>) {
  // expected-error @below {{'ho.compute' op result 0 is tied to operand 1, but the op has 1 operands (use -1 for a result with its own buffer)}}
  %y = ho.compute "relu"(%x) {tied_operands = array<i64: 1>}
      : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tied_negative(%x: tensor<4xf32>) {
  // expected-error @below {{'ho.compute' op result 0 is tied to operand -2, but the op has 1 operands}}
  %y = ho.compute "relu"(%x) {tied_operands = array<i64: -2>}
      : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @tied_type(%cache: tensor<16x8xbf16>, %kv: tensor<1x8xbf16>) {
  // expected-error @below {{'ho.compute' op result 0 is tied to operand 1, but its type 'tensor<16x8xbf16>' differs from the operand's type 'tensor<1x8xbf16>'}}
  %y = ho.compute "kv_append"(%cache, %kv) {tied_operands = array<i64: 1>}
      : (tensor<16x8xbf16>, tensor<1x8xbf16>) -> tensor<16x8xbf16>
  return
}

// -----

func.func @tied_twice(%x: tensor<4xf32>) {
  // expected-error @below {{'ho.compute' op operand 0 is tied to both result 0 and result 1; a buffer can be reused by one result only}}
  %y:2 = ho.compute "split"(%x) {tied_operands = array<i64: 0, 0>}
      : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @compute_on_remote(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{'ho.compute' op operand #0 must be variadic of tensor of any type values, but got '!ho.remote<tensor<4xf32>>'}}
  %y = "ho.compute"(%r) <{kind = "relu"}> : (!ho.remote<tensor<4xf32>>) -> tensor<4xf32>
  return
}

// -----

func.func @wait_for_no_offload(%r: !ho.remote<tensor<4xf32>>) {
  // expected-error @below {{'ho.wait_offload' op waits for an offload, but its operand is not the result of ho.offload}}
  ho.wait_offload %r : !ho.remote<tensor<4xf32>>
  return
}
