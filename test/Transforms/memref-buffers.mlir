// Memref buffers (arguments, allocations, globals and their views) are
// measured like tensors, so a report on bufferized IR gives the peak
// bufferization allocates, but no plan moves them.
// RUN: hyperoffload-opt %s --ho-check-plannable -verify-diagnostics -o /dev/null
// RUN: hyperoffload-opt %s --ho-report="hw=%S/Inputs/round-numbers.json" -o /dev/null | FileCheck %s
// RUN: hyperoffload-opt %s --hyperoffload="hw=%S/Inputs/round-numbers.json budget=2MB" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN

memref.global "private" constant @bias : memref<1024xf32> = dense<1.0>

// Six 4 KB buffers: two arguments and a global, resident throughout, and
// three allocations, each freed by its dealloc; at most two allocations are
// live at once, so the peak is 20 KB. The cast is a view, not a buffer.
// expected-warning @below {{@f holds 24576 bytes in memref buffers, which the plan counts but cannot move: it moves tensors; plan before bufferization}}
func.func @f(%a: memref<1024xf32>, %out: memref<1024xf32>) {
  %bias = memref.get_global @bias : memref<1024xf32>
  %t = memref.alloc() : memref<1024xf32>
  linalg.add ins(%a, %bias : memref<1024xf32>, memref<1024xf32>) outs(%t : memref<1024xf32>)
  %u = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%t : memref<1024xf32>) outs(%u : memref<1024xf32>)
  memref.dealloc %t : memref<1024xf32>
  %v = memref.cast %u : memref<1024xf32> to memref<?xf32>
  %w = memref.alloc() : memref<1024xf32>
  linalg.exp ins(%v : memref<?xf32>) outs(%w : memref<1024xf32>)
  memref.dealloc %u : memref<1024xf32>
  memref.copy %w, %out : memref<1024xf32> to memref<1024xf32>
  memref.dealloc %w : memref<1024xf32>
  return
}
// CHECK: @f simulation
// CHECK: peak live       20.48 KB
// PLAN: warning: @f holds 24576 bytes in memref buffers
