// CostOpInterface: ho.compute reports its hints, or for a kind without a
// formula of its own (compute-kinds.mlir has those) the size-based defaults:
// one operation per result element; every operand and result touched once.
// RUN: hyperoffload-opt %s --test-ho-cost-interface -verify-diagnostics -split-input-file

func.func @defaults(%x: tensor<64x128xbf16>, %w: tensor<128x32xbf16>) {
  // 64*32 results; 16 KiB + 8 KiB read, 64*32*4 = 8 KiB written.
  // expected-remark @below {{flops = 2048, bytes = 32768}}
  %y = ho.compute "fused_kernel"(%x, %w)
      : (tensor<64x128xbf16>, tensor<128x32xbf16>) -> tensor<64x32xf32>
  return
}

// -----

func.func @hints(%x: tensor<8xf32>) {
  // expected-remark @below {{flops = 1000, bytes = 64}}
  %y = ho.compute "matmul"(%x) {flops = 1000 : i64}
      : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @below {{flops = 8, bytes = 0}}
  %z = ho.compute "relu"(%x) {bytes = 0 : i64}
      : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// Sub-byte elements round up to whole bytes: 3 x i4 is 2 bytes.
func.func @sub_byte(%x: tensor<3xi4>) {
  // expected-remark @below {{flops = 3, bytes = 4}}
  %y = ho.compute "dequant"(%x) : (tensor<3xi4>) -> tensor<3xi4>
  return
}

// -----

// Without static sizes, the cost is unknown rather than guessed.
func.func @dynamic(%x: tensor<?xf32>) {
  // expected-remark @below {{flops = unknown, bytes = unknown}}
  %y = ho.compute "relu"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

// Transfers are not compute: they do not implement the interface.
func.func @transfers_have_no_compute_cost(%x: tensor<8xf32>) {
  %r = ho.offload %x : tensor<8xf32> -> !ho.remote<tensor<8xf32>>
  return
}
