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
  // expected-error @below {{'ho.wait_offload' op waits for an offload, but its operand is not the result of ho.offload or ho.offload_slice}}
  ho.wait_offload %r : !ho.remote<tensor<4xf32>>
  return
}

// -----

// The selection holds integer expert ids.
func.func @routed_float_selection(%x: tensor<2x8xbf16>, %ids: tensor<2x1xf32>, %e0: tensor<8xbf16>) {
  // expected-error @below {{selection must be a statically shaped integer tensor of expert ids, [..., top] per token, but is 'tensor<2x1xf32>'}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xf32>
      experts(%e0 : tensor<8xbf16>) {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<2x8xbf16>
  return
}

// -----

func.func @routed_mixed_experts(%x: tensor<2x8xbf16>, %ids: tensor<2x1xi32>, %e0: tensor<8xbf16>, %e1: tensor<4xbf16>) {
  // expected-error @below {{expert #1 has type 'tensor<4xbf16>', but expert #0 is 'tensor<8xbf16>': every expert has the same tensor type}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xi32>
      experts(%e0, %e1 : tensor<8xbf16>, tensor<4xbf16>) {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<2x8xbf16>
  return
}

// -----

func.func @routed_out_of_range(%x: tensor<2x8xbf16>, %ids: tensor<2x1xi32>, %e0: tensor<8xbf16>, %e1: tensor<8xbf16>) {
  // expected-error @below {{holds experts 3 to 4 of total_experts = 4, which is out of range}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xi32>
      experts(%e0, %e1 : tensor<8xbf16>, tensor<8xbf16>) {first_expert = 3 : i64, total_experts = 4 : i64} -> tensor<2x8xbf16>
  return
}

// -----

func.func @routed_top_too_large(%x: tensor<2x8xbf16>, %ids: tensor<2x3xi32>, %e0: tensor<8xbf16>) {
  // expected-error @below {{picks 3 experts per token of 2; pick 1 to 2}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x3xi32>
      experts(%e0 : tensor<8xbf16>) {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<2x8xbf16>
  return
}

// -----

// Remote experts are read from slots a ho.prefetch_routed filled.
func.func @routed_remote_without_slots(%x: tensor<2x8xbf16>, %ids: tensor<2x1xi32>, %e0: !ho.remote<tensor<8xbf16>>) {
  // expected-error @below {{reads 1 remote experts but has no staged slots: pass the awaited result of a ho.prefetch_routed of them}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xi32>
      experts(%e0 : !ho.remote<tensor<8xbf16>>) {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<2x8xbf16>
  return
}

// -----

func.func @routed_wrong_slots(%x: tensor<2x8xbf16>, %ids: tensor<2x1xi32>, %e0: !ho.remote<tensor<8xbf16>>, %e1: !ho.remote<tensor<8xbf16>>, %e2: !ho.remote<tensor<8xbf16>>, %s: tensor<3x8xbf16>) {
  // expected-error @below {{staged slots have type 'tensor<3x8xbf16>', but 3 remote experts picked by 'tensor<2x1xi32>' need 'tensor<2x8xbf16>'}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xi32>
      experts(%e0, %e1, %e2 : !ho.remote<tensor<8xbf16>>, !ho.remote<tensor<8xbf16>>, !ho.remote<tensor<8xbf16>>)
      staged(%s : tensor<3x8xbf16>) {first_expert = 0 : i64, total_experts = 4 : i64} -> tensor<2x8xbf16>
  return
}

// -----

func.func @routed_slots_without_remote(%x: tensor<2x8xbf16>, %ids: tensor<2x1xi32>, %e0: tensor<8xbf16>, %s: tensor<1x8xbf16>) {
  // expected-error @below {{has staged slots but no remote expert to stage; drop them}}
  %y = ho.routed "ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xi32>
      experts(%e0 : tensor<8xbf16>) staged(%s : tensor<1x8xbf16>) {first_expert = 0 : i64, total_experts = 2 : i64} -> tensor<2x8xbf16>
  return
}

// -----

func.func @prefetch_routed_ids(%ids: tensor<2x1xi32>, %e0: !ho.remote<tensor<8xbf16>>, %e1: !ho.remote<tensor<8xbf16>>) {
  // expected-error @below {{expert_ids[1] = 2 repeats an earlier id}}
  %f = ho.prefetch_routed %ids : tensor<2x1xi32>
      experts(%e0, %e1 : !ho.remote<tensor<8xbf16>>, !ho.remote<tensor<8xbf16>>)
      {expert_ids = array<i64: 2, 2>, total_experts = 4 : i64} -> !ho.future<tensor<2x8xbf16>>
  return
}

// -----

func.func @prefetch_routed_id_range(%ids: tensor<2x1xi32>, %e0: !ho.remote<tensor<8xbf16>>) {
  // expected-error @below {{expert_ids[0] = 4 is out of range: total_experts = 4}}
  %f = ho.prefetch_routed %ids : tensor<2x1xi32>
      experts(%e0 : !ho.remote<tensor<8xbf16>>)
      {expert_ids = array<i64: 4>, total_experts = 4 : i64} -> !ho.future<tensor<1x8xbf16>>
  return
}

// -----

func.func @prefetch_routed_id_count(%ids: tensor<2x1xi32>, %e0: !ho.remote<tensor<8xbf16>>) {
  // expected-error @below {{has 1 experts but 2 expert_ids: give one per expert}}
  %f = ho.prefetch_routed %ids : tensor<2x1xi32>
      experts(%e0 : !ho.remote<tensor<8xbf16>>)
      {expert_ids = array<i64: 0, 1>, total_experts = 4 : i64} -> !ho.future<tensor<1x8xbf16>>
  return
}

// -----

func.func @prefetch_routed_slots(%ids: tensor<2x1xi32>, %e0: !ho.remote<tensor<8xbf16>>, %e1: !ho.remote<tensor<8xbf16>>, %e2: !ho.remote<tensor<8xbf16>>) {
  // expected-error @below {{yields '!ho.future<tensor<3x8xbf16>>', but 3 experts picked by 'tensor<2x1xi32>' need slots of type 'tensor<2x8xbf16>'}}
  %f = ho.prefetch_routed %ids : tensor<2x1xi32>
      experts(%e0, %e1, %e2 : !ho.remote<tensor<8xbf16>>, !ho.remote<tensor<8xbf16>>, !ho.remote<tensor<8xbf16>>)
      {expert_ids = array<i64: 0, 1, 2>, total_experts = 4 : i64} -> !ho.future<tensor<3x8xbf16>>
  return
}

// -----

func.func @gather_blocks_axis(%c: tensor<2x10x8xbf16>, %sel: tensor<2x2xi32>) {
  // expected-error @below {{axis = 3 is out of range for 'tensor<2x10x8xbf16>' (rank 3)}}
  %g = ho.gather_blocks %c[%sel] {axis = 3 : i64, block_size = 4 : i64}
      : tensor<2x10x8xbf16>, tensor<2x2xi32> -> tensor<2x8x8xbf16>
  return
}

// -----

func.func @gather_blocks_negative_block(%c: tensor<2x10x8xbf16>, %sel: tensor<2x2xi32>) {
  // expected-error @below {{block_size = -4 must be positive}}
  %g = ho.gather_blocks %c[%sel] {axis = 1 : i64, block_size = -4 : i64}
      : tensor<2x10x8xbf16>, tensor<2x2xi32> -> tensor<2x8x8xbf16>
  return
}

// -----

func.func @gather_blocks_rows(%c: tensor<2x10x8xbf16>, %sel: tensor<3x2xi32>) {
  // expected-error @below {{selection must be an integer tensor of block indices, [rows..., k] with the rows of the source before axis 1, but is 'tensor<3x2xi32>'}}
  %g = ho.gather_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : tensor<2x10x8xbf16>, tensor<3x2xi32> -> tensor<2x8x8xbf16>
  return
}

// -----

func.func @gather_blocks_too_many(%c: tensor<2x10x8xbf16>, %sel: tensor<2x4xi32>) {
  // expected-error @below {{picks 4 blocks per row of 3; pick 1 to 3}}
  %g = ho.gather_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : tensor<2x10x8xbf16>, tensor<2x4xi32> -> tensor<2x16x8xbf16>
  return
}

// -----

func.func @gather_blocks_result(%c: tensor<2x10x8xbf16>, %sel: tensor<2x2xi32>) {
  // expected-error @below {{yields 'tensor<2x4x8xbf16>', but 2 blocks of 4 along axis 1 of 'tensor<2x10x8xbf16>' are 'tensor<2x8x8xbf16>'}}
  %g = ho.gather_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : tensor<2x10x8xbf16>, tensor<2x2xi32> -> tensor<2x4x8xbf16>
  return
}

// -----

func.func @gather_blocks_remote_unstaged(%c: !ho.remote<tensor<2x10x8xbf16>>, %sel: tensor<2x2xi32>) {
  // expected-error @below {{reads a remote source but has no staged blocks: pass the awaited result of a ho.prefetch_blocks of it}}
  %g = ho.gather_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x10x8xbf16>>, tensor<2x2xi32> -> tensor<2x8x8xbf16>
  return
}

// -----

func.func @gather_blocks_device_staged(%c: tensor<2x10x8xbf16>, %sel: tensor<2x2xi32>, %s: tensor<2x8x8xbf16>) {
  // expected-error @below {{has staged blocks but a device source to read them from; drop them}}
  %g = ho.gather_blocks %c[%sel] staged(%s : tensor<2x8x8xbf16>) {axis = 1 : i64, block_size = 4 : i64}
      : tensor<2x10x8xbf16>, tensor<2x2xi32> -> tensor<2x8x8xbf16>
  return
}

// -----

func.func @prefetch_blocks_result(%c: !ho.remote<tensor<2x10x8xbf16>>, %sel: tensor<2x2xi32>) {
  // expected-error @below {{yields 'tensor<2x12x8xbf16>', but 2 blocks of 4 along axis 1 of 'tensor<2x10x8xbf16>' are 'tensor<2x8x8xbf16>'}}
  %f = ho.prefetch_blocks %c[%sel] {axis = 1 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x10x8xbf16>>, tensor<2x2xi32> -> !ho.future<tensor<2x12x8xbf16>>
  return
}

// -----

func.func @offload_slice_outside(%row: tensor<2x1x8xbf16>, %c: !ho.remote<tensor<2x10x8xbf16>>) {
  // expected-error @below {{offset 10 in dimension 1 puts 1 elements outside 10}}
  %n = ho.offload_slice %row into %c [0, 10, 0] : tensor<2x1x8xbf16> into !ho.remote<tensor<2x10x8xbf16>>
  return
}

// -----

func.func @offload_slice_rank(%row: tensor<2x1x8xbf16>, %c: !ho.remote<tensor<2x10x8xbf16>>) {
  // expected-error @below {{has 2 offsets for a rank-3 destination}}
  %n = ho.offload_slice %row into %c [0, 9] : tensor<2x1x8xbf16> into !ho.remote<tensor<2x10x8xbf16>>
  return
}

// -----

// expected-error @below {{argument #1: 'ho.tier_copy_of' must be the i64 number of an earlier argument}}
func.func @tier_copy_of_later(%a: !ho.remote<tensor<4xf32>>, %b: !ho.remote<tensor<4xf32>> {ho.tier_copy_of = 1 : i64}) {
  return
}

// -----

// expected-error @below {{argument #1: 'ho.tier_copy_of' must be the i64 number of an earlier argument}}
func.func @tier_copy_of_not_integer(%a: tensor<4xf32>, %b: !ho.remote<tensor<4xf32>> {ho.tier_copy_of = "a"}) {
  return
}

// -----

// expected-error @below {{argument #1: 'ho.tier_copy_of' names argument #0 of type 'tensor<4xf32>', so this argument must be a !ho.remote of that tensor type, but it is '!ho.remote<tensor<8xf32>>'}}
func.func @tier_copy_of_other_type(%a: tensor<4xf32>, %b: !ho.remote<tensor<8xf32>> {ho.tier_copy_of = 0 : i64}) {
  return
}

// -----

// expected-error @below {{argument #1: 'ho.tier_copy_of' names argument #0 of type 'tensor<4xf32>', so this argument must be a !ho.remote of that tensor type, but it is 'tensor<4xf32>'}}
func.func @tier_copy_of_not_remote(%a: tensor<4xf32>, %b: tensor<4xf32> {ho.tier_copy_of = 0 : i64}) {
  return
}

// -----

// expected-error @below {{argument #0: 'ho.placed_by_plan' must be a unit attribute}}
func.func @placed_by_plan_not_unit(%a: !ho.remote<tensor<4xf32>> {ho.placed_by_plan = 1 : i64}) {
  return
}

// -----

// expected-error @below {{argument #0: 'ho.placed_by_plan' marks an argument the plan passes in a tier, so it must be a !ho.remote, but it is 'tensor<4xf32>'}}
func.func @placed_by_plan_on_device(%a: tensor<4xf32> {ho.placed_by_plan}) {
  return
}
