// RUN: gptc-opt %s --gptc-fuse-elementwise --mlir-print-local-scope | FileCheck %s

// gptc-fuse-elementwise: a single-use elementwise linalg.generic is fused
// into the linalg.generic that consumes it. A producer whose other users
// only store it moves into its consumer, which then yields it too; a
// generic without inputs (a broadcast scalar), or one that only
// broadcasts or widens its input, is recomputed in each user (also through
// a reshape into heads). A producer read only by one consumer through
// several operands fuses too, and so does one behind a collapse_shape
// nothing else reads; a linalg.transpose becomes a generic that folds into
// its user, through a reshape too. Producers
// that compute, read by several kernels, are not duplicated, and named
// GEMMs are never fused (gptc-gemm-to-blas needs them).

#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// exp then * 2: one generic computing both.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[IN]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%0 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// A broadcast (a non-identity input map) fuses into the multiply; the
// broadcast input keeps its map in the fused op.
// CHECK-LABEL: func.func @broadcast_into_mul
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x1xf32>, %[[Y:[a-z0-9_]+]]: tensor<2x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[Y]], %[[X]] : tensor<2x8xf32>, tensor<2x1xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @broadcast_into_mul(%x: tensor<2x1xf32>, %y: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %e0 = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x1xf32>) outs(%e0 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x8xf32>
  %e1 = tensor.empty() : tensor<2x8xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %0 : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e1 : tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// An elementwise producer fuses into a reduction (x^2 summed in one op).
// CHECK-LABEL: func.func @square_into_sum
// CHECK: %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[IN]], %[[IN]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[SQ]], %[[ACC]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @square_into_sum(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %e0 = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e0 : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%0 : tensor<2x8xf32>) outs(%init : tensor<2x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x1xf32>
  return %1 : tensor<2x1xf32>
}

// Adam's shape: the new moment m' is stored (returned here) and read by the
// parameter update. One kernel computes both and yields both.
// CHECK-LABEL: func.func @stored_and_read
// CHECK-SAME: (%[[P:[a-z0-9_]+]]: tensor<4xf32>, %[[M:[a-z0-9_]+]]: tensor<4xf32>, %[[G:[a-z0-9_]+]]: tensor<4xf32>)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%[[P]], %[[M]], %[[G]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[NM:.*]] = arith.addf
// CHECK: %[[NP:.*]] = arith.subf %{{.*}}, %[[NM]]
// CHECK: linalg.yield %[[NM]], %[[NP]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]#1, %[[R]]#0
func.func @stored_and_read(%p: tensor<4xf32>, %m: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %m1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%m, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%p, %m1 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %p1, %m1 : tensor<4xf32>, tensor<4xf32>
}

// A scalar broadcast to a shape (a bias correction) read by two kernels:
// each kernel reads the scalar itself; no generic without inputs is left.
// CHECK-LABEL: func.func @broadcast_scalar_two_users
// CHECK-SAME: (%[[S:[a-z0-9_]+]]: f32, %[[X:[a-z0-9_]+]]: tensor<4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK: arith.divf %{{.*}}, %[[S]]
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK: arith.mulf %{{.*}}, %[[S]]
// CHECK-NOT: linalg.generic
func.func @broadcast_scalar_two_users(%s: f32, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id1], iterator_types = ["parallel"]}
      outs(%e : tensor<4xf32>) {
  ^bb0(%out: f32):
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%x, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %r = arith.divf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%x, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// A table broadcast over a leading dimension (the rotary cos table over
// batch and heads) and a bf16 tensor widened to f32, each read by two
// kernels: each kernel reads the small table and the bf16 values itself;
// neither the broadcast nor the widened copy is materialised.
// CHECK-LABEL: func.func @broadcast_and_widen_two_users
// CHECK-SAME: (%[[T:[a-z0-9_]+]]: tensor<8xf32>, %[[H:[a-z0-9_]+]]: tensor<4x8xbf16>, %[[X:[a-z0-9_]+]]: tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]{{.*}} ins(%[[X]], %[[T]], %[[H]] : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xbf16>)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[T]], %[[H]] : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xbf16>)
// CHECK: arith.extf
// CHECK: arith.subf
// CHECK: arith.divf
// CHECK-NOT: linalg.generic
#bcast = affine_map<(d0, d1) -> (d1)>
func.func @broadcast_and_widen_two_users(%t: tensor<8xf32>, %h: tensor<4x8xbf16>, %x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x8xbf16>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %w : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %out: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %m, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %w : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %d: f32, %out: f32):
    %m = arith.subf %a, %c : f32
    %r = arith.divf %m, %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// An update read by a second kernel and rounded to bf16 for storage: the
// rounding becomes a second result of the kernel that computes the update
// (no kernel reads the f32 value back to round it), which then, its other
// result stored only, moves into the reading kernel: one kernel.
// CHECK-LABEL: func.func @rounded_for_storage
// CHECK: %[[U:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<4x8xf32>)
// CHECK: %[[F:.*]] = arith.mulf
// CHECK-NEXT: %[[B:.*]] = arith.truncf %[[F]] : f32 to bf16
// CHECK-NEXT: %[[E:.*]] = math.exp %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[B]], %[[E]] : bf16, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[U]]#0, %[[U]]#1 : tensor<4x8xbf16>, tensor<4x8xf32>
func.func @rounded_for_storage(%x: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %eb = tensor.empty() : tensor<4x8xbf16>
  %u = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<4x8xf32>) outs(%eb : tensor<4x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %n, %s : tensor<4x8xbf16>, tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Must not fire
//===----------------------------------------------------------------------===//

// A plain copy (as many bytes read as written) and a narrowing cast read
// by two kernels each: cloning would read as much or more than the copy;
// both stay kernels of their own.
// CHECK-LABEL: func.func @copy_and_narrow_two_users
// CHECK: %[[C:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield
// CHECK: %[[N:.*]] = linalg.generic
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[N]] :
// CHECK: linalg.generic {{.*}} ins(%[[C]], %[[N]] :
func.func @copy_and_narrow_two_users(%x: tensor<4x8xf32>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %eb = tensor.empty() : tensor<4x8xbf16>
  %c = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%eb : tensor<4x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x8xbf16>
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %n : tensor<4x8xf32>, tensor<4x8xbf16>) outs(%eb : tensor<4x8xbf16>) {
  ^bb0(%a: f32, %b: bf16, %out: bf16):
    %f = arith.truncf %a : f32 to bf16
    %r = arith.addf %f, %b : bf16
    linalg.yield %r : bf16
  } -> tensor<4x8xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %n : tensor<4x8xf32>, tensor<4x8xbf16>) outs(%eb : tensor<4x8xbf16>) {
  ^bb0(%a: f32, %b: bf16, %out: bf16):
    %f = arith.truncf %a : f32 to bf16
    %r = arith.mulf %f, %b : bf16
    linalg.yield %r : bf16
  } -> tensor<4x8xbf16>
  return %0, %1 : tensor<4x8xbf16>, tensor<4x8xbf16>
}

// A rounding that reads its producer transposed is no second result of it
// (the producer's loops are not the rounding's).
// CHECK-LABEL: func.func @rounded_transposed
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
func.func @rounded_transposed(%x: tensor<4x4xf32>) -> (tensor<4x4xbf16>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %eb = tensor.empty() : tensor<4x4xbf16>
  %u = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %in : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<4x4xf32>) outs(%eb : tensor<4x4xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x4xbf16>
  %s = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  return %n, %s : tensor<4x4xbf16>, tensor<4x4xf32>
}

// exp has two users: fusing would recompute it, so the three generics stay.
// CHECK-LABEL: func.func @two_users
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<4xf32>)
// CHECK: arith.negf
// CHECK-NOT: math.exp
// CHECK: %[[S:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<4xf32>)
// CHECK: math.sin
// CHECK-NOT: math.exp
// CHECK: return %[[N]], %[[S]]
func.func @two_users(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e0 = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%0 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%0 : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.sin %in : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// A generic feeding a linalg.matmul, and the matmul feeding a generic: the
// GEMM stays a named op between two separate generics.
// CHECK-LABEL: func.func @around_matmul
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<2x3xf32>, %[[B:[a-z0-9_]+]]: tensor<3x4xf32>)
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x3xf32>)
// CHECK: math.exp
// CHECK: %[[C:.*]] = linalg.matmul ins(%[[E]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK: %[[N:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.negf %[[IN]]
// CHECK: return %[[N]]
func.func @around_matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %e0 = tensor.empty() : tensor<2x3xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<2x3xf32>) outs(%e0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = linalg.matmul ins(%0, %b : tensor<2x3xf32>, tensor<3x4xf32>)
      outs(%init : tensor<2x4xf32>) -> tensor<2x4xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<2x4xf32>) outs(%e2 : tensor<2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.negf %in : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// A reduction producer is not elementwise: the scale of a mean stays a
// separate generic after the sum.
// CHECK-LABEL: func.func @sum_then_scale
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: %[[M:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<2x1xf32>)
// CHECK: return %[[M]]
func.func @sum_then_scale(%x: tensor<2x8xf32>) -> tensor<2x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x1xf32>) -> tensor<2x1xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x8xf32>) outs(%init : tensor<2x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x1xf32>
  %e1 = tensor.empty() : tensor<2x1xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<2x1xf32>) outs(%e1 : tensor<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.125 : f32
    %r = arith.mulf %in, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x1xf32>
  return %1 : tensor<2x1xf32>
}

// m' is stored before its consumer runs: the fused kernel would come too
// late for the store, so both generics stay.
// CHECK-LABEL: func.func @stored_before_read
// CHECK: %[[M1:.*]] = linalg.generic
// CHECK: bufferization.materialize_in_destination %[[M1]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[M1]] : tensor<4xf32>, tensor<4xf32>)
func.func @stored_before_read(%p: tensor<4xf32>, %m: tensor<4xf32>, %g: tensor<4xf32>, %dst: memref<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %m1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%m, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  bufferization.materialize_in_destination %m1 in restrict writable %dst : (tensor<4xf32>, memref<4xf32>) -> ()
  %p1 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%p, %m1 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %p1 : tensor<4xf32>
}

// A bf16 projection widened to f32, then split into heads and read by a
// row reduction (the QK norm's sum of squares) and an elementwise kernel:
// the widening moves through the reshape (the generic over the heads'
// shape, of the bf16 input expanded) and is recomputed in each user, so
// both read the bf16 projection and no f32 copy is stored.
// CHECK-LABEL: func.func @widen_through_reshape
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<8x64xbf16>
// CHECK: %[[QH:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2]] output_shape [8, 2, 32] : tensor<8x64xbf16> into tensor<8x2x32xbf16>
// CHECK: %[[SS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[QH]] : tensor<8x2x32xbf16>)
// CHECK: arith.extf
// CHECK: linalg.generic {{.*}} ins(%[[QH]], %[[SS]] : tensor<8x2x32xbf16>, tensor<8x2xf32>)
// CHECK: arith.extf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @widen_through_reshape(%q: tensor<8x64xbf16>, %zero: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2x32xf32>) {
  %e = tensor.empty() : tensor<8x64xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<8x64xbf16>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    linalg.yield %x : f32
  } -> tensor<8x64xf32>
  %h = tensor.expand_shape %w [[0], [1, 2]] output_shape [8, 2, 32] : tensor<8x64xf32> into tensor<8x2x32xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h : tensor<8x2x32xf32>) outs(%zero : tensor<8x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %sq, %out : f32
    linalg.yield %s : f32
  } -> tensor<8x2xf32>
  %e3 = tensor.empty() : tensor<8x2x32xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%h, %ss : tensor<8x2x32xf32>, tensor<8x2xf32>) outs(%e3 : tensor<8x2x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = math.rsqrt %s : f32
    %y = arith.mulf %in, %r : f32
    linalg.yield %y : f32
  } -> tensor<8x2x32xf32>
  return %ss, %n : tensor<8x2xf32>, tensor<8x2x32xf32>
}

// Must not fire: a reshape of a generic that computes (exp) stays, and so
// does the generic: it is not recomputed per user.
// CHECK-LABEL: func.func @computed_through_reshape
// CHECK: %[[X:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: tensor.expand_shape %[[X]]
func.func @computed_through_reshape(%q: tensor<8x64xf32>) -> tensor<8x2x32xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %w = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<8x64xf32>
  %h = tensor.expand_shape %w [[0], [1, 2]] output_shape [8, 2, 32] : tensor<8x64xf32> into tensor<8x2x32xf32>
  return %h : tensor<8x2x32xf32>
}

// The QK norm's normalize, then the rotary, which reads both halves of a
// head (two operands of one producer), then the rounding that transposes
// the heads for the attention, behind a collapse_shape of the halves: one
// kernel. The producer read twice is recomputed for each half; the
// rounding runs over the halves' shape (the collapse folded by expansion)
// and writes the transposed heads through an expand_shape.
// CHECK-LABEL: func.func @norm_rotary_round
// CHECK-SAME: (%[[Q:[a-z0-9_]+]]: tensor<8x2x2x4xf32>, %[[RS:[a-z0-9_]+]]: tensor<8x2xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[Q]], %[[RS]], %[[Q]] : tensor<8x2x2x4xf32>, tensor<8x2xf32>, tensor<8x2x2x4xf32>)
// CHECK-SAME: outs(%{{.*}} : tensor<2x8x2x4xbf16>)
// CHECK-COUNT-2: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.subf
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3]] : tensor<2x8x2x4xbf16> into tensor<2x8x8xbf16>
func.func @norm_rotary_round(%q: tensor<8x2x2x4xf32>, %rs: tensor<8x2xf32>) -> tensor<2x8x8xbf16> {
  %e = tensor.empty() : tensor<8x2x2x4xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(t, h, s, d) -> (t, h, s, d)>, affine_map<(t, h, s, d) -> (t, h)>, affine_map<(t, h, s, d) -> (t, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q, %rs : tensor<8x2x2x4xf32>, tensor<8x2xf32>) outs(%e : tensor<8x2x2x4xf32>) {
  ^bb0(%x: f32, %r: f32, %out: f32):
    %y = arith.mulf %x, %r : f32
    linalg.yield %y : f32
  } -> tensor<8x2x2x4xf32>
  // out[.., 0, d] = x0 - x1, out[.., 1, d] = x0 + x1 (a rotary without
  // angles: both halves of the input for each output element).
  %rot = linalg.generic {indexing_maps = [affine_map<(t, h, s, d) -> (t, h, 0, d)>, affine_map<(t, h, s, d) -> (t, h, 1, d)>, affine_map<(t, h, s, d) -> (t, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%n, %n : tensor<8x2x2x4xf32>, tensor<8x2x2x4xf32>) outs(%e : tensor<8x2x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x2x2x4xf32>
  %heads = tensor.collapse_shape %rot [[0], [1], [2, 3]] : tensor<8x2x2x4xf32> into tensor<8x2x8xf32>
  %e2 = tensor.empty() : tensor<2x8x8xbf16>
  %t = linalg.generic {indexing_maps = [affine_map<(h, t, d) -> (t, h, d)>, affine_map<(h, t, d) -> (h, t, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%heads : tensor<8x2x8xf32>) outs(%e2 : tensor<2x8x8xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<2x8x8xbf16>
  return %t : tensor<2x8x8xbf16>
}

// Must not fire: the collapsed value is also returned (another user), so
// the consumer stays on the collapsed shape and both kernels stay.
// CHECK-LABEL: func.func @collapse_with_another_user
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[P]]
// CHECK: linalg.generic {{.*}} ins(%[[C]] : tensor<8x8xf32>)
func.func @collapse_with_another_user(%x: tensor<8x2x4xf32>) -> (tensor<8x8xf32>, tensor<8x8xbf16>) {
  %e = tensor.empty() : tensor<8x2x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x2x4xf32>) outs(%e : tensor<8x2x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<8x2x4xf32>
  %c = tensor.collapse_shape %p [[0], [1, 2]] : tensor<8x2x4xf32> into tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xbf16>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<8x8xf32>) outs(%e2 : tensor<8x8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.truncf %in : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x8xbf16>
  return %c, %t : tensor<8x8xf32>, tensor<8x8xbf16>
}

// The attention's dq in the heads' order, transposed back and split into
// the rotary's halves: the transpose becomes a generic, moves through the
// expand_shape (nothing else reads it) and fuses into the inverse rotary,
// which reads dq through the permuted map. No copy is left.
// CHECK-LABEL: func.func @transpose_into_user
// CHECK-SAME: (%[[DQ:[a-z0-9_]+]]: tensor<2x8x8xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[DQ]] {{\[}}[0], [1], [2, 3]] output_shape [2, 8, 2, 4]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, d0, 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[E]], %[[E]] : tensor<2x8x2x4xf32>, tensor<2x8x2x4xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @transpose_into_user(%dq: tensor<2x8x8xf32>) -> tensor<8x2x2x4xf32> {
  %e = tensor.empty() : tensor<8x2x8xf32>
  %t = linalg.transpose ins(%dq : tensor<2x8x8xf32>) outs(%e : tensor<8x2x8xf32>) permutation = [1, 0, 2]
  %halves = tensor.expand_shape %t [[0], [1], [2, 3]] output_shape [8, 2, 2, 4] : tensor<8x2x8xf32> into tensor<8x2x2x4xf32>
  %e2 = tensor.empty() : tensor<8x2x2x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(t, h, s, d) -> (t, h, 0, d)>, affine_map<(t, h, s, d) -> (t, h, 1, d)>, affine_map<(t, h, s, d) -> (t, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%halves, %halves : tensor<8x2x2x4xf32>, tensor<8x2x2x4xf32>) outs(%e2 : tensor<8x2x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.addf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x2x2x4xf32>
  return %r : tensor<8x2x2x4xf32>
}

// ReLU of a bf16 GEMM output in f32, read by its square (forward) and by
// the backward: a widening and a clamp, cheaper to compute again in each
// user than to store in f32 and read back; both users read the bf16 input.
// CHECK-LABEL: func.func @relu_in_each_user
// CHECK-SAME: (%[[H:[a-z0-9_]+]]: tensor<8x16xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[H]] : tensor<8x16xbf16>)
// CHECK: arith.maximumf
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%[[H]], %{{.*}} : tensor<8x16xbf16>, tensor<8x16xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @relu_in_each_user(%h: tensor<8x16xbf16>, %dy: tensor<8x16xf32>) -> (tensor<8x16xbf16>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x16xbf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %x = arith.extf %in : bf16 to f32
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %e16 = tensor.empty() : tensor<8x16xbf16>
  %sq = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e16 : tensor<8x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %s = arith.mulf %in, %in : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8x16xbf16>
  %dh = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r, %dy : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %g = arith.mulf %a, %b : f32
    linalg.yield %g : f32
  } -> tensor<8x16xf32>
  return %sq, %dh : tensor<8x16xbf16>, tensor<8x16xf32>
}

// Must not fire: a max against a value known only at run time is not a
// clamp; read by two kernels, it is computed once.
// CHECK-LABEL: func.func @max_of_runtime_value_stays
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<8x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[M]] : tensor<8x16xf32>)
func.func @max_of_runtime_value_stays(%h: tensor<8x16xbf16>, %floor: f32) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<8x16xbf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %x = arith.extf %a : bf16 to f32
    %m = arith.maximumf %x, %floor : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  %u1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.exp %in : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %u2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.log %in : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %u1, %u2 : tensor<8x16xf32>, tensor<8x16xf32>
}
