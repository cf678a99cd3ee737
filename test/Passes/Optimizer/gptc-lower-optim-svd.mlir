// RUN: gptc-opt %s -split-input-file --gptc-lower-optim | FileCheck %s
// RUN: gptc-opt %s -split-input-file --gptc-lower-optim --gptc-lower-to-linalg \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   --canonicalize --buffer-deallocation-pipeline --canonicalize \
// RUN:   | FileCheck %s --check-prefix=BUF

// The SVD backend: optim.svd_orthogonalize (and Muon with backend = svd)
// becomes a call of the runtime's U V^T (runtime/gptrt.h) on the operand's
// buffer, viewed as [batch, rows, cols], and a new result buffer, in f32
// (f64 for f64). Run on the module, the pass declares the callees, each
// once, with the C interface (descriptors by pointer).

// CHECK-LABEL: module
// CHECK-DAG: func.func private @gptc_svd_orthogonalize_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @gptc_svd_orthogonalize_f64(memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}

// A tall f32 matrix: a batch of one.
// CHECK-LABEL: func.func @svd_tall
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<64x16xf32>)
// CHECK-NEXT: %[[G3:.*]] = gpt.reshape %[[G]] : tensor<64x16xf32> to tensor<1x64x16xf32>
// CHECK-NEXT: %[[IN:.*]] = bufferization.to_buffer %[[G3]] read_only : tensor<1x64x16xf32> to memref<1x64x16xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<1x64x16xf32>
// CHECK-NEXT: %[[INC:.*]] = memref.cast %[[IN]] : memref<1x64x16xf32, strided<[?, ?, ?], offset: ?>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: %[[OUTC:.*]] = memref.cast %[[OUT]] : memref<1x64x16xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: call @gptc_svd_orthogonalize_f32(%[[INC]], %[[OUTC]])
// CHECK-NEXT: %[[O3:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<1x64x16xf32> to tensor<1x64x16xf32>
// CHECK-NEXT: %[[O:.*]] = gpt.reshape %[[O3]] : tensor<1x64x16xf32> to tensor<64x16xf32>
// CHECK-NEXT: return %[[O]]
// After bufferization the call reads the argument's own buffer (a view, no
// copy) and writes the buffer the function returns.
// BUF-LABEL: func.func @svd_tall
// BUF-SAME: (%[[ARG:[a-z0-9_]+]]: memref<64x16xf32>) -> memref<64x16xf32>
// BUF-NEXT: %[[IN:.*]] = memref.expand_shape %[[ARG]] {{\[}}[0, 1], [2]] output_shape [1, 64, 16]
// BUF-NEXT: %[[OUT:.*]] = memref.alloc() : memref<1x64x16xf32>
// BUF-NEXT: %[[INC:.*]] = memref.cast %[[IN]]
// BUF-NEXT: %[[OUTC:.*]] = memref.cast %[[OUT]]
// BUF-NEXT: call @gptc_svd_orthogonalize_f32(%[[INC]], %[[OUTC]])
// BUF-NEXT: %[[R:.*]] = memref.collapse_shape %[[OUT]]
// BUF-NEXT: return %[[R]]
func.func @svd_tall(%g: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %o = optim.svd_orthogonalize %g : tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// bf16 with two batch dimensions: computed in f32 on the 6 matrices, cast
// back.
// CHECK-LABEL: func.func @svd_batched_bf16
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<2x3x4x16xbf16>)
// CHECK-NEXT: %[[GF:.*]] = gpt.cast %[[G]] : tensor<2x3x4x16xbf16> to tensor<2x3x4x16xf32>
// CHECK-NEXT: %[[G3:.*]] = gpt.reshape %[[GF]] : tensor<2x3x4x16xf32> to tensor<6x4x16xf32>
// CHECK-NEXT: bufferization.to_buffer %[[G3]] read_only : tensor<6x4x16xf32> to memref<6x4x16xf32, strided<[?, ?, ?], offset: ?>>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<6x4x16xf32>
// CHECK: call @gptc_svd_orthogonalize_f32(
// CHECK-NEXT: %[[O3:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NEXT: %[[O4:.*]] = gpt.reshape %[[O3]] : tensor<6x4x16xf32> to tensor<2x3x4x16xf32>
// CHECK-NEXT: %[[O:.*]] = gpt.cast %[[O4]] : tensor<2x3x4x16xf32> to tensor<2x3x4x16xbf16>
// CHECK-NEXT: return %[[O]]
func.func @svd_batched_bf16(%g: tensor<2x3x4x16xbf16>) -> tensor<2x3x4x16xbf16> {
  %o = optim.svd_orthogonalize %g : tensor<2x3x4x16xbf16>
  return %o : tensor<2x3x4x16xbf16>
}

// f64 stays f64; a rank-3 batch needs no reshape.
// CHECK-LABEL: func.func @svd_f64
// CHECK-SAME: (%[[G:[a-z0-9_]+]]: tensor<3x8x16xf64>)
// CHECK-NEXT: bufferization.to_buffer %[[G]] read_only : tensor<3x8x16xf64> to memref<3x8x16xf64, strided<[?, ?, ?], offset: ?>>
// CHECK: call @gptc_svd_orthogonalize_f64(
// CHECK-NEXT: %[[O:.*]] = bufferization.to_tensor
// CHECK-NEXT: return %[[O]]
func.func @svd_f64(%g: tensor<3x8x16xf64>) -> tensor<3x8x16xf64> {
  %o = optim.svd_orthogonalize %g : tensor<3x8x16xf64>
  return %o : tensor<3x8x16xf64>
}

// Muon with the SVD backend on a fused QKV matrix: one call per 4x4 block,
// and none of the Newton-Schulz attributes matter (no GEMM at all).
// CHECK-LABEL: func.func @muon_svd_qkv
// CHECK: gpt.split %{{.*}} dim = 0 : tensor<12x4xf32> -> tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NOT: gpt.matmul
// CHECK-COUNT-3: call @gptc_svd_orthogonalize_f32(
// CHECK-NOT: gpt.matmul
// CHECK: gpt.concat
// CHECK-NOT: gpt.matmul
// CHECK: return
// In the buffers, each call reads its block of the Nesterov update as a
// view (an offset into it), not a copy, and its result buffer is freed at
// the end.
// BUF-LABEL: func.func @muon_svd_qkv
// BUF-COUNT-3: memref.subview %{{.*}}[{{[048]}}, 0] [4, 4] [1, 1]
// BUF-NOT: memref.copy
// BUF: %[[O1:.*]] = memref.alloc() : memref<1x4x4xf32>
// BUF-NOT: memref.copy
// BUF: call @gptc_svd_orthogonalize_f32(
// BUF-COUNT-2: call @gptc_svd_orthogonalize_f32(
// BUF: memref.dealloc %[[O1]]
// BUF: return
func.func @muon_svd_qkv(%p: tensor<12x4xf32>, %g: tensor<12x4xf32>, %buf: tensor<12x4xf32>,
                        %lr: tensor<f64>, %m: tensor<f64>) -> (tensor<12x4xf32>, tensor<12x4xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim qkv_split backend = svd steps = 5
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = apply_then_combine transpose = short_side normalize = before_cast
      compute_dtype = bf16 weight_decay = 0.0 : tensor<12x4xf32>
  return %p1, %b1 : tensor<12x4xf32>, tensor<12x4xf32>
}

// -----

// A declaration that is there already (of the right type) is used, not
// repeated.
// CHECK-LABEL: module
// CHECK-COUNT-1: func.func private @gptc_svd_orthogonalize_f32(
// CHECK-NOT: func.func private @gptc_svd_orthogonalize_f32(
// CHECK-LABEL: func.func @two_calls
// CHECK-COUNT-2: call @gptc_svd_orthogonalize_f32(
func.func private @gptc_svd_orthogonalize_f32(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>) attributes {llvm.emit_c_interface}

func.func @two_calls(%a: tensor<8x8xf32>, %b: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<4x8xf32>) {
  %oa = optim.svd_orthogonalize %a : tensor<8x8xf32>
  %ob = optim.svd_orthogonalize %b : tensor<4x8xf32>
  return %oa, %ob : tensor<8x8xf32>, tensor<4x8xf32>
}

// -----

// Must not fire: without the SVD backend nothing is declared or called.
// CHECK-LABEL: module
// CHECK-NOT: gptc_svd_orthogonalize
// CHECK-NOT: bufferization.to_buffer
// CHECK-LABEL: func.func @newton_schulz_only
// CHECK-NOT: gptc_svd_orthogonalize
// CHECK: return
func.func @newton_schulz_only(%p: tensor<8x4xf32>, %g: tensor<8x4xf32>, %buf: tensor<8x4xf32>,
                              %lr: tensor<f64>, %m: tensor<f64>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %p1, %b1 = optim.muon %p, %g, %buf, %lr, %m momentum_form = sum nesterov
      update_scale = sqrt_max_dim backend = newton_schulz steps = 1
      coefficients = [3.4445, -4.7750, 2.0315] eps = 1.0e-7
      form = polynomial_then_apply transpose = short_side
      normalize = after_cast compute_dtype = bf16 weight_decay = 0.0
      : tensor<8x4xf32>
  return %p1, %b1 : tensor<8x4xf32>, tensor<8x4xf32>
}
