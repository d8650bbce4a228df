// Every ho type and op survives a print/parse round trip, in the custom form
// and through the generic form.
// RUN: hyperoffload-opt %s | FileCheck %s
// RUN: hyperoffload-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: hyperoffload-opt %s --mlir-print-op-generic | hyperoffload-opt | FileCheck %s
// RUN: hyperoffload-opt %s | hyperoffload-opt | FileCheck %s

// The pool tier is the default and is not printed; other tiers are.
// CHECK-LABEL: func.func @remote_tiers
// CHECK-SAME: !ho.remote<tensor<4x8xbf16>>
// CHECK-SAME: !ho.remote<tensor<4x8xbf16>>
// CHECK-SAME: !ho.remote<tensor<16xf32>, host>
// CHECK-SAME: !ho.remote<tensor<2x2xi4>, disk>
func.func @remote_tiers(%a: !ho.remote<tensor<4x8xbf16>>,
                        %b: !ho.remote<tensor<4x8xbf16>, pool>,
                        %c: !ho.remote<tensor<16xf32>, host>,
                        %d: !ho.remote<tensor<2x2xi4>, disk>) {
  return
}

// CHECK-LABEL: func.func @compute_forms
// CHECK-SAME: (%[[X:.+]]: tensor<64x512xbf16>, %[[W:.+]]: tensor<512x256xbf16>)
func.func @compute_forms(%x: tensor<64x512xbf16>, %w: tensor<512x256xbf16>)
    -> tensor<64x256xbf16> {
  // CHECK: %[[Y:.+]] = ho.compute "matmul"(%[[X]], %[[W]]) : (tensor<64x512xbf16>, tensor<512x256xbf16>) -> tensor<64x256xbf16>
  %y = ho.compute "matmul"(%x, %w)
      : (tensor<64x512xbf16>, tensor<512x256xbf16>) -> tensor<64x256xbf16>
  // CHECK: %[[Z:.+]] = ho.compute "gelu"(%[[Y]]) {bytes = 65536 : i64, flops = 0 : i64}
  %z = ho.compute "gelu"(%y) {flops = 0 : i64, bytes = 65536 : i64}
      : (tensor<64x256xbf16>) -> tensor<64x256xbf16>
  // No operands and several results are both fine.
  // CHECK: %{{.+}}:2 = ho.compute "rng"() : () -> (tensor<4xi32>, tensor<4xf32>)
  %r:2 = ho.compute "rng"() : () -> (tensor<4xi32>, tensor<4xf32>)
  // CHECK: return %[[Z]]
  return %z : tensor<64x256xbf16>
}

// Result 0 reuses operand 0; result 1 has a buffer of its own.
// CHECK-LABEL: func.func @tied
// CHECK: ho.compute "kv_append"(%{{.+}}, %{{.+}}) {tied_operands = array<i64: 0, -1>}
func.func @tied(%cache: tensor<4096x128xbf16>, %kv: tensor<1x128xbf16>)
    -> (tensor<4096x128xbf16>, tensor<1x128xbf16>) {
  %new_cache, %copy = ho.compute "kv_append"(%cache, %kv)
      {tied_operands = array<i64: 0, -1>}
      : (tensor<4096x128xbf16>, tensor<1x128xbf16>)
      -> (tensor<4096x128xbf16>, tensor<1x128xbf16>)
  return %new_cache, %copy : tensor<4096x128xbf16>, tensor<1x128xbf16>
}

// A value leaves for the pool and comes back before its next use.
// CHECK-LABEL: func.func @offload_then_prefetch
// CHECK-SAME: (%[[ACT:.+]]: tensor<64x512xbf16>)
// CHECK: %[[R:.+]] = ho.offload %[[ACT]] : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>>
// CHECK: %[[H:.+]] = ho.offload %[[ACT]] : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>, host>
// CHECK: %[[F:.+]] = ho.prefetch %[[R]] : !ho.remote<tensor<64x512xbf16>> -> !ho.future<tensor<64x512xbf16>>
// CHECK: %[[T:.+]] = ho.await %[[F]] : !ho.future<tensor<64x512xbf16>> -> tensor<64x512xbf16>
// CHECK: return %[[T]], %[[H]]
func.func @offload_then_prefetch(%act: tensor<64x512xbf16>)
    -> (tensor<64x512xbf16>, !ho.remote<tensor<64x512xbf16>, host>) {
  %r = ho.offload %act : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>>
  %h = ho.offload %act : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>, host>
  %f = ho.prefetch %r : !ho.remote<tensor<64x512xbf16>> -> !ho.future<tensor<64x512xbf16>>
  %t = ho.await %f : !ho.future<tensor<64x512xbf16>> -> tensor<64x512xbf16>
  return %t, %h : tensor<64x512xbf16>, !ho.remote<tensor<64x512xbf16>, host>
}

// Compute waits until a store has landed, so that its memory is free.
// CHECK-LABEL: func.func @wait_for_offload
// CHECK: %[[R:.+]] = ho.offload
// CHECK-NEXT: ho.wait_offload %[[R]] : !ho.remote<tensor<64x512xbf16>, host>
func.func @wait_for_offload(%act: tensor<64x512xbf16>) -> !ho.remote<tensor<64x512xbf16>, host> {
  %r = ho.offload %act : tensor<64x512xbf16> -> !ho.remote<tensor<64x512xbf16>, host>
  ho.wait_offload %r : !ho.remote<tensor<64x512xbf16>, host>
  return %r : !ho.remote<tensor<64x512xbf16>, host>
}

// GENERIC-LABEL: "func.func"() <{function_type = (tensor<64x512xbf16>)
// GENERIC: "ho.offload"(%{{.+}}) : (tensor<64x512xbf16>) -> !ho.remote<tensor<64x512xbf16>>
// GENERIC: "ho.prefetch"(%{{.+}}) : (!ho.remote<tensor<64x512xbf16>>) -> !ho.future<tensor<64x512xbf16>>
// GENERIC: "ho.await"(%{{.+}}) : (!ho.future<tensor<64x512xbf16>>) -> tensor<64x512xbf16>
// GENERIC-LABEL: sym_name = "wait_for_offload"
// GENERIC: "ho.wait_offload"(%{{.+}}) : (!ho.remote<tensor<64x512xbf16>, host>) -> ()

// A mixture-of-experts layer: two experts resident, two in the pool whose
// picked ones are fetched into two slots once the router has picked.
// CHECK-LABEL: func.func @routed_experts
// CHECK:         %[[F:.*]] = ho.prefetch_routed %[[IDS:.*]] : tensor<2x1xi32> experts(%{{.*}}, %{{.*}} : !ho.remote<tensor<3x8x4xbf16>>, !ho.remote<tensor<3x8x4xbf16>>) {expert_ids = array<i64: 2, 3>, total_experts = 8 : i64} -> !ho.future<tensor<2x3x8x4xbf16>>
// CHECK:         %[[S:.*]] = ho.await %[[F]]
// CHECK:         ho.routed "expert_ffn"(%{{.*}} : tensor<2x8xbf16>) by %[[IDS]] : tensor<2x1xi32> experts(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x8x4xbf16>, tensor<3x8x4xbf16>, !ho.remote<tensor<3x8x4xbf16>>, !ho.remote<tensor<3x8x4xbf16>>) staged(%[[S]] : tensor<2x3x8x4xbf16>) {first_expert = 4 : i64, total_experts = 8 : i64} -> tensor<2x8xbf16>
func.func @routed_experts(%x: tensor<2x8xbf16>, %ids: tensor<2x1xi32>,
                          %e0: tensor<3x8x4xbf16>, %e1: tensor<3x8x4xbf16>,
                          %e2: !ho.remote<tensor<3x8x4xbf16>>,
                          %e3: !ho.remote<tensor<3x8x4xbf16>>) -> tensor<2x8xbf16> {
  %f = ho.prefetch_routed %ids : tensor<2x1xi32>
      experts(%e2, %e3 : !ho.remote<tensor<3x8x4xbf16>>, !ho.remote<tensor<3x8x4xbf16>>)
      {expert_ids = array<i64: 2, 3>, total_experts = 8 : i64}
      -> !ho.future<tensor<2x3x8x4xbf16>>
  %s = ho.await %f : !ho.future<tensor<2x3x8x4xbf16>> -> tensor<2x3x8x4xbf16>
  %y = ho.routed "expert_ffn"(%x : tensor<2x8xbf16>) by %ids : tensor<2x1xi32>
      experts(%e0, %e1, %e2, %e3 : tensor<3x8x4xbf16>, tensor<3x8x4xbf16>,
              !ho.remote<tensor<3x8x4xbf16>>, !ho.remote<tensor<3x8x4xbf16>>)
      staged(%s : tensor<2x3x8x4xbf16>)
      {first_expert = 4 : i64, total_experts = 8 : i64} -> tensor<2x8xbf16>
  return %y : tensor<2x8xbf16>
}

// A KV cache read in blocks: gathered on the device, or left in the pool
// with the picked blocks prefetched and one row stored back.
// CHECK-LABEL: func.func @selected_blocks
// CHECK:         ho.gather_blocks %{{.*}}[%[[SEL:.*]]] {axis = 2 : i64, block_size = 4 : i64} : tensor<2x1x10x8xbf16>, tensor<2x1x2xi32> -> tensor<2x1x8x8xbf16>
// CHECK:         %[[F:.*]] = ho.prefetch_blocks %[[R:.*]][%[[SEL]]] {axis = 2 : i64, block_size = 4 : i64} : !ho.remote<tensor<2x1x10x8xbf16>>, tensor<2x1x2xi32> -> !ho.future<tensor<2x1x8x8xbf16>>
// CHECK:         %[[S:.*]] = ho.await %[[F]]
// CHECK:         ho.gather_blocks %[[R]][%[[SEL]]] staged(%[[S]] : tensor<2x1x8x8xbf16>) {axis = 2 : i64, block_size = 4 : i64} : !ho.remote<tensor<2x1x10x8xbf16>>, tensor<2x1x2xi32> -> tensor<2x1x8x8xbf16>
// CHECK:         ho.offload_slice %{{.*}} into %[[R]] [0, 0, 9, 0] : tensor<2x1x1x8xbf16> into !ho.remote<tensor<2x1x10x8xbf16>>
// GENERIC-LABEL: sym_name = "selected_blocks"
// GENERIC: "ho.gather_blocks"(%{{.+}}, %{{.+}}) <{axis = 2 : i64, block_size = 4 : i64}>
// GENERIC: "ho.prefetch_blocks"(%{{.+}}, %{{.+}}) <{axis = 2 : i64, block_size = 4 : i64}>
// GENERIC: "ho.offload_slice"(%{{.+}}, %{{.+}}) <{offsets = array<i64: 0, 0, 9, 0>}>
func.func @selected_blocks(%cache: tensor<2x1x10x8xbf16>,
                           %remote: !ho.remote<tensor<2x1x10x8xbf16>>,
                           %sel: tensor<2x1x2xi32>, %row: tensor<2x1x1x8xbf16>)
    -> (tensor<2x1x8x8xbf16>, tensor<2x1x8x8xbf16>, !ho.remote<tensor<2x1x10x8xbf16>>) {
  %a = ho.gather_blocks %cache[%sel] {axis = 2 : i64, block_size = 4 : i64}
      : tensor<2x1x10x8xbf16>, tensor<2x1x2xi32> -> tensor<2x1x8x8xbf16>
  %f = ho.prefetch_blocks %remote[%sel] {axis = 2 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x1x10x8xbf16>>, tensor<2x1x2xi32>
      -> !ho.future<tensor<2x1x8x8xbf16>>
  %s = ho.await %f : !ho.future<tensor<2x1x8x8xbf16>> -> tensor<2x1x8x8xbf16>
  %b = ho.gather_blocks %remote[%sel] staged(%s : tensor<2x1x8x8xbf16>)
      {axis = 2 : i64, block_size = 4 : i64}
      : !ho.remote<tensor<2x1x10x8xbf16>>, tensor<2x1x2xi32> -> tensor<2x1x8x8xbf16>
  %next = ho.offload_slice %row into %remote [0, 0, 9, 0]
      : tensor<2x1x1x8xbf16> into !ho.remote<tensor<2x1x10x8xbf16>>
  return %a, %b, %next : tensor<2x1x8x8xbf16>, tensor<2x1x8x8xbf16>, !ho.remote<tensor<2x1x10x8xbf16>>
}
