// The budget holds at every point of the schedule as written, with an
// allocator that does not fragment. Round-numbers target: a 1 MB offload
// takes 1 ms, 1e9 FLOPs take 1 ms; tensor<250000xf32> is 1 MB.
// RUN: hyperoffload-opt %s --ho-verify-schedule="hw=%S/Inputs/round-numbers.json budget=1.5MB" -split-input-file -verify-diagnostics -o /dev/null

// %a is offloaded, but the copy still reads it when %b is allocated at the
// same instant: 2 MB are live.
func.func @offload_in_flight() -> tensor<250000xf32> {
  %a = ho.compute "make"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  // expected-error @below {{device memory exceeds the budget here: 2000000 bytes live, budget 1500000; offload a live buffer before this op, prefetch later, or raise the budget}}
  %b = ho.compute "make"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  return %b : tensor<250000xf32>
}

// -----

// With 1.5 ms of compute after the offload, its copy has completed and %a
// is freed before %b is allocated: at most 1 MB + 16 B are live.
func.func @offload_completed() -> tensor<250000xf32> {
  %a = ho.compute "make"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  %r = ho.offload %a : tensor<250000xf32> -> !ho.remote<tensor<250000xf32>>
  %w = ho.compute "work"() {flops = 1500000000 : i64, bytes = 0 : i64} : () -> tensor<4xf32>
  %b = ho.compute "make"() {flops = 0 : i64, bytes = 0 : i64} : () -> tensor<250000xf32>
  return %b : tensor<250000xf32>
}

// -----

// The caller's arguments alone take 2 MB: the error is at the function.
// expected-error @below {{device memory exceeds the budget here: 2000000 bytes live, budget 1500000; the arguments alone do not fit: pass some as !ho.remote and prefetch them when needed, or raise the budget}}
func.func @arguments(%x: tensor<250000xf32>, %y: tensor<250000xf32>) {
  return
}
