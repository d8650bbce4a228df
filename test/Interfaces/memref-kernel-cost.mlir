// Bufferized and vectorized kernels are priced by their memory traffic:
// loads and stores move the bytes they load or store, loops multiply their
// body by the trip count, and views, allocations and scalar arithmetic are
// no device work. Round-numbers target: 1 MB at 1 TB/s is 1 us.
// RUN: hyperoffload-opt %s --ho-annotate-cost="hw=%S/../Transforms/Inputs/round-numbers.json" | FileCheck %s
// RUN: hyperoffload-opt %s --ho-explain-cost="hw=%S/../Transforms/Inputs/round-numbers.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @kernels
func.func @kernels(%a: memref<500x500xf32>, %b: memref<500x500xf32>) {
  // CHECK: memref.alloc
  // CHECK-NOT: ho.cost
  // CHECK-SAME: memref<500x500xf32>
  %t = memref.alloc() : memref<500x500xf32>
  // A subview shares its source: no work.
  // CHECK: memref.subview
  // CHECK-NOT: ho.cost
  // CHECK-SAME: strided
  %s = memref.subview %a[0, 0] [250, 500] [1, 1] : memref<500x500xf32> to memref<250x500xf32, strided<[500, 1]>>
  // 250000 iterations, each loading and storing 4 bytes: 2 MB.
  // CHECK: affine.store
  // CHECK-SAME: bytes = 4 : i64
  // CHECK: ho.cost = {bytes = 4000 : i64
  // CHECK: ho.cost = {bytes = 2000000 : i64, flops = 0 : i64, seconds = 2.000000e-06 : f64, source = "interface"}
  affine.for %i = 0 to 500 {
    affine.for %j = 0 to 500 {
      %v = affine.load %a[%i, %j] : memref<500x500xf32>
      %w = arith.addf %v, %v : f32
      affine.store %w, %t[%i, %j] : memref<500x500xf32>
    }
  }
  // Vector transfers of 8 x 4 bytes, a padding value of 4, over an
  // scf.parallel of 500 x 63 iterations (step 8 rounds up): 2.142 MB.
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c500 = arith.constant 500 : index
  %pad = arith.constant 0.0 : f32
  // CHECK: scf.parallel
  // CHECK: vector.transfer_read
  // CHECK-SAME: bytes = 36 : i64
  // CHECK: vector.transfer_write
  // CHECK-SAME: bytes = 32 : i64
  // CHECK: ho.cost = {bytes = 2142000 : i64, flops = 0 : i64
  scf.parallel (%i, %j) = (%c0, %c0) to (%c500, %c500) step (%c1, %c8) {
    %v = vector.transfer_read %t[%i, %j], %pad : memref<500x500xf32>, vector<8xf32>
    %w = arith.addf %v, %v : vector<8xf32>
    vector.transfer_write %w, %b[%i, %j] : vector<8xf32>, memref<500x500xf32>
    scf.reduce
  }
  // No model: the memrefs it reads and writes, 1 MB each.
  // CHECK: memref.copy
  // CHECK-SAME: ho.cost = {bytes = 2000000 : i64, flops = 0 : i64, seconds = 2.000000e-06 : f64, source = "bytes-estimate"}
  // REMARK: remark: no cost model for 'memref.copy': estimated from the 2.00 MB it reads and writes
  memref.copy %t, %b : memref<500x500xf32> to memref<500x500xf32>
  // CHECK: memref.dealloc
  // CHECK-NOT: ho.cost
  // CHECK-SAME: memref<500x500xf32>
  memref.dealloc %t : memref<500x500xf32>
  return
}

// affine.parallel: 100 x 25 iterations of 8 bytes.
// CHECK-LABEL: func.func @band
// CHECK: } {ho.cost = {bytes = 20000 : i64, flops = 0 : i64
func.func @band(%a: memref<100x100xf32>) {
  affine.parallel (%i, %j) = (0, 0) to (100, 100) step (1, 4) {
    %v = affine.load %a[%i, %j] : memref<100x100xf32>
    affine.store %v, %a[%i, %j] : memref<100x100xf32>
  }
  return
}

// A loop whose bound is not a constant is not guessed: it touches what it
// uses from outside once (1 MB), or, when that has no static size, is one
// launch.
// REMARK: remark: cost of 'affine.for' unknown: its bounds or steps are not constants; estimated from the 1.00 MB it reads and writes as 1.000 us
// REMARK: remark: cost of 'affine.for' unknown: its bounds or steps are not constants; timed as one launch (0.000 us): a tensor or memref it touches has a dynamic size
func.func @unknown(%a: memref<250000xf32>, %d: memref<?xf32>, %n: index) {
  affine.for %i = 0 to %n {
    %v = affine.load %a[%i] : memref<250000xf32>
    affine.store %v, %a[%i] : memref<250000xf32>
  }
  affine.for %i = 0 to %n {
    %v = affine.load %d[%i] : memref<?xf32>
    affine.store %v, %d[%i] : memref<?xf32>
  }
  return
}

// A loop without a model over a memref it captures falls back to that
// memref's bytes (4 KB), not to nothing.
// REMARK: remark: no cost model for 'scf.while': estimated from the 4.00 KB it reads and writes
func.func @loop(%a: memref<1000xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i : index
  } do {
  ^bb0(%i: index):
    %v = memref.load %a[%i] : memref<1000xf32>
    memref.store %v, %a[%i] : memref<1000xf32>
    %j = arith.addi %i, %c1 : index
    scf.yield %j : index
  }
  return
}
// REMARK-NOT: remark
