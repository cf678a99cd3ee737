// RUN: gptc-opt %s --gptc-fuse-attention --split-input-file | FileCheck %s

// No mask: softmax(scale q k^T) v.
// CHECK-LABEL: func.func @unmasked
// CHECK-NEXT:    %[[O:[^,]*]], %[[LSE:.*]] = gpt.attention %arg0, %arg1, %arg2 mask = <causal = false, window = none, bos = -1> scale = 3.500000e-01 : tensor<1x2x128x8xf32>
// CHECK-NEXT:    return %[[O]] :
func.func @unmasked(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %s dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %s, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Causal.
// CHECK-LABEL: func.func @causal
// CHECK-NEXT:    gpt.attention %arg0, %arg1, %arg2 mask = <causal = true, window = none, bos = -1>
// CHECK-NOT:     gpt.exp
func.func @causal(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %causal : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Causal with a sliding window in tokens, the window a run-time value.
// CHECK-LABEL: func.func @causal_window_tokens
// CHECK-NEXT:    gpt.attention %arg0, %arg1, %arg2 window %arg3 : tensor<i64> mask = <causal = true, window = tokens, bos = -1>
func.func @causal_window_tokens(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>, %w: tensor<i64>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %dist = gpt.sub %qp, %kp : tensor<1x1x128x128xi64>
  %wr = gpt.reshape %w : tensor<i64> to tensor<1x1x1x1xi64>
  %wb = gpt.broadcast %wr : tensor<1x1x1x1xi64> to tensor<1x1x128x128xi64>
  %inw = gpt.compare lt, %dist, %wb : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %f_allowed = gpt.constant dense<false> : tensor<1x1x128x128xi1>
  %allowed = gpt.select %causal, %inw, %f_allowed : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %allowed : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Causal, a window in 128-token blocks and documents (R21's mask).
// CHECK-LABEL: func.func @causal_blocks_document
// CHECK-NEXT:    gpt.attention %arg0, %arg1, %arg2 tokens %arg4 : tensor<1x128xi32> window %arg3 : tensor<i64> mask = <causal = true, window = blocks, bos = 256>
func.func @causal_blocks_document(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>, %w: tensor<i64>, %tok: tensor<1x128xi32>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %c128 = gpt.constant dense<128> : tensor<1x1x128x128xi64>
  %kblk = gpt.div %kp, %c128 : tensor<1x1x128x128xi64>
  %qblk = gpt.div %qp, %c128 : tensor<1x1x128x128xi64>
  %bd = gpt.sub %qblk, %kblk : tensor<1x1x128x128xi64>
  %c128s = gpt.constant dense<128> : tensor<i64>
  %wblk = gpt.div %w, %c128s : tensor<i64>
  %wr = gpt.reshape %wblk : tensor<i64> to tensor<1x1x1x1xi64>
  %wb = gpt.broadcast %wr : tensor<1x1x1x1xi64> to tensor<1x1x128x128xi64>
  %inw = gpt.compare lt, %bd, %wb : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %f_cw = gpt.constant dense<false> : tensor<1x1x128x128xi1>
  %cw = gpt.select %causal, %inw, %f_cw : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %bos = gpt.constant dense<256> : tensor<1x128xi32>
  %isb = gpt.compare eq, %tok, %bos : tensor<1x128xi32> -> tensor<1x128xi1>
  %isbi = gpt.cast %isb : tensor<1x128xi1> to tensor<1x128xi32>
  %doc = gpt.cumsum %isbi dim = 1 : tensor<1x128xi32>
  %dq = gpt.reshape %doc : tensor<1x128xi32> to tensor<1x1x128x1xi32>
  %dqb = gpt.broadcast %dq : tensor<1x1x128x1xi32> to tensor<1x1x128x128xi32>
  %dk = gpt.reshape %doc : tensor<1x128xi32> to tensor<1x1x1x128xi32>
  %dkb = gpt.broadcast %dk : tensor<1x1x1x128xi32> to tensor<1x1x128x128xi32>
  %same = gpt.compare eq, %dqb, %dkb : tensor<1x1x128x128xi32> -> tensor<1x1x128x128xi1>
  %f_allowed = gpt.constant dense<false> : tensor<1x1x128x128xi1>
  %allowed = gpt.select %cw, %same, %f_allowed : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %allowed : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Documents only, GEMMs in bf16 (casts around both matmuls): the fused
// op keeps the products' precision.
// CHECK-LABEL: func.func @document_bf16
// CHECK-NEXT:    %[[O:[^,]*]], %[[LSE:.*]] = gpt.attention %arg0, %arg1, %arg2 tokens %arg3 : tensor<1x128xi32> mask = <causal = false, window = none, bos = 256> scale = {{.*}} products = bf16 :
// CHECK-NEXT:    return %[[O]] :
func.func @document_bf16(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>, %tok: tensor<1x128xi32>) -> tensor<1x2x128x8xf32> {
  %qh = gpt.cast %q : tensor<1x2x128x8xf32> to tensor<1x2x128x8xbf16>
  %kh = gpt.cast %k : tensor<1x2x128x8xf32> to tensor<1x2x128x8xbf16>
  %qkh = gpt.matmul %qh, %kh transpose_rhs : tensor<1x2x128x8xbf16>, tensor<1x2x128x8xbf16> -> tensor<1x2x128x128xbf16>
  %qk = gpt.cast %qkh : tensor<1x2x128x128xbf16> to tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %bos = gpt.constant dense<256> : tensor<1x128xi32>
  %isb = gpt.compare eq, %tok, %bos : tensor<1x128xi32> -> tensor<1x128xi1>
  %isbi = gpt.cast %isb : tensor<1x128xi1> to tensor<1x128xi32>
  %doc = gpt.cumsum %isbi dim = 1 : tensor<1x128xi32>
  %dq = gpt.reshape %doc : tensor<1x128xi32> to tensor<1x1x128x1xi32>
  %dqb = gpt.broadcast %dq : tensor<1x1x128x1xi32> to tensor<1x1x128x128xi32>
  %dk = gpt.reshape %doc : tensor<1x128xi32> to tensor<1x1x1x128xi32>
  %dkb = gpt.broadcast %dk : tensor<1x1x1x128xi32> to tensor<1x1x128x128xi32>
  %same = gpt.compare eq, %dqb, %dkb : tensor<1x1x128x128xi32> -> tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %same : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %ph = gpt.cast %p : tensor<1x2x128x128xf32> to tensor<1x2x128x128xbf16>
  %vh = gpt.cast %v : tensor<1x2x128x8xf32> to tensor<1x2x128x8xbf16>
  %oh = gpt.matmul %ph, %vh : tensor<1x2x128x128xbf16>, tensor<1x2x128x8xbf16> -> tensor<1x2x128x8xbf16>
  %o = gpt.cast %oh : tensor<1x2x128x8xbf16> to tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Must not fire: a mask that is none of causal / window / document
// (keys after the query: k >= q).
// CHECK-LABEL: func.func @unknown_mask
// CHECK-NOT:     gpt.attention
// CHECK:         gpt.exp
func.func @unknown_mask(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %anti = gpt.compare le, %qp, %kp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %anti : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Causal, the element window inside ceil(W/128) key blocks of the same W
// (R12-R15's BlockMask and mask_mod).
// CHECK-LABEL: func.func @record_blocks
// CHECK:         gpt.attention %arg0, %arg1, %arg2 window %arg3 : tensor<i64> mask = <causal = true, window = record_blocks, bos = -1>
func.func @record_blocks(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>, %w: tensor<i64>, %w2: tensor<i64>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %dist = gpt.sub %qp, %kp : tensor<1x1x128x128xi64>
  %wr = gpt.reshape %w : tensor<i64> to tensor<1x1x1x1xi64>
  %wb = gpt.broadcast %wr : tensor<1x1x1x1xi64> to tensor<1x1x128x128xi64>
  %inw = gpt.compare lt, %dist, %wb : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %f = gpt.constant dense<false> : tensor<1x1x128x128xi1>
  %cw = gpt.select %causal, %inw, %f : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %c128 = gpt.constant dense<128> : tensor<1x1x128x128xi64>
  %qblk = gpt.div %qp, %c128 : tensor<1x1x128x128xi64>
  %kblk = gpt.div %kp, %c128 : tensor<1x1x128x128xi64>
  %bd = gpt.sub %qblk, %kblk : tensor<1x1x128x128xi64>
  %c127s = gpt.constant dense<127> : tensor<i64>
  %c128s = gpt.constant dense<128> : tensor<i64>
  %wup = gpt.add %w, %c127s : tensor<i64>
  %wblk = gpt.div %wup, %c128s : tensor<i64>
  %wblkr = gpt.reshape %wblk : tensor<i64> to tensor<1x1x1x1xi64>
  %wblkb = gpt.broadcast %wblkr : tensor<1x1x1x1xi64> to tensor<1x1x128x128xi64>
  %inb = gpt.compare lt, %bd, %wblkb : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %allowed = gpt.select %cw, %inb, %f : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %allowed : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Must not fire: the element rule and the ceil-counted blocks of two
// different windows (no rule of #gpt.mask).
// CHECK-LABEL: func.func @record_blocks_two_windows
// CHECK-NOT:     gpt.attention
// CHECK:         gpt.exp
func.func @record_blocks_two_windows(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>, %w: tensor<i64>, %w2: tensor<i64>) -> tensor<1x2x128x8xf32> {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %dist = gpt.sub %qp, %kp : tensor<1x1x128x128xi64>
  %wr = gpt.reshape %w : tensor<i64> to tensor<1x1x1x1xi64>
  %wb = gpt.broadcast %wr : tensor<1x1x1x1xi64> to tensor<1x1x128x128xi64>
  %inw = gpt.compare lt, %dist, %wb : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %f = gpt.constant dense<false> : tensor<1x1x128x128xi1>
  %cw = gpt.select %causal, %inw, %f : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %c128 = gpt.constant dense<128> : tensor<1x1x128x128xi64>
  %qblk = gpt.div %qp, %c128 : tensor<1x1x128x128xi64>
  %kblk = gpt.div %kp, %c128 : tensor<1x1x128x128xi64>
  %bd = gpt.sub %qblk, %kblk : tensor<1x1x128x128xi64>
  %c127s = gpt.constant dense<127> : tensor<i64>
  %c128s = gpt.constant dense<128> : tensor<i64>
  %wup = gpt.add %w2, %c127s : tensor<i64>
  %wblk = gpt.div %wup, %c128s : tensor<i64>
  %wblkr = gpt.reshape %wblk : tensor<i64> to tensor<1x1x1x1xi64>
  %wblkb = gpt.broadcast %wblkr : tensor<1x1x1x1xi64> to tensor<1x1x128x128xi64>
  %inb = gpt.compare lt, %bd, %wblkb : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %allowed = gpt.select %cw, %inb, %f : tensor<1x1x128x128xi1>, tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %allowed : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o : tensor<1x2x128x8xf32>
}

// -----

// Must not fire: the probabilities have a second user.
// CHECK-LABEL: func.func @probabilities_with_second_user
// CHECK-NOT:     gpt.attention
// CHECK:         gpt.div
func.func @probabilities_with_second_user(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>) -> (tensor<1x2x128x8xf32>, tensor<1x2x128x128xf32>) {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %causal : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o, %p : tensor<1x2x128x8xf32>, tensor<1x2x128x128xf32>
}

// -----

// Must not fire: the masked scores have a second user.
// CHECK-LABEL: func.func @scores_with_second_user
// CHECK-NOT:     gpt.attention
func.func @scores_with_second_user(%q: tensor<1x2x128x8xf32>, %k: tensor<1x2x128x8xf32>, %v: tensor<1x2x128x8xf32>) -> (tensor<1x2x128x8xf32>, tensor<1x2x128x128xf32>) {
  %qk = gpt.matmul %q, %k transpose_rhs : tensor<1x2x128x8xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x128xf32>
  %s = gpt.mul_scalar %qk, 3.500000e-01 : tensor<1x2x128x128xf32>
  %qp = gpt.iota dim = 2 : tensor<1x1x128x128xi64>
  %kp = gpt.iota dim = 3 : tensor<1x1x128x128xi64>
  %causal = gpt.compare le, %kp, %qp : tensor<1x1x128x128xi64> -> tensor<1x1x128x128xi1>
  %bm = gpt.broadcast %causal : tensor<1x1x128x128xi1> to tensor<1x2x128x128xi1>
  %ninf = gpt.constant dense<0xFF800000> : tensor<1x2x128x128xf32>
  %sm = gpt.select %bm, %s, %ninf : tensor<1x2x128x128xi1>, tensor<1x2x128x128xf32>
  %mx = gpt.reduce max %sm dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %mxb = gpt.broadcast %mx : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %d = gpt.sub %sm, %mxb : tensor<1x2x128x128xf32>
  %e = gpt.exp %d : tensor<1x2x128x128xf32>
  %z = gpt.reduce sum %e dims = [3] : tensor<1x2x128x128xf32> -> tensor<1x2x128x1xf32>
  %zb = gpt.broadcast %z : tensor<1x2x128x1xf32> to tensor<1x2x128x128xf32>
  %p = gpt.div %e, %zb : tensor<1x2x128x128xf32>
  %o = gpt.matmul %p, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x8xf32> -> tensor<1x2x128x8xf32>
  return %o, %sm : tensor<1x2x128x8xf32>, tensor<1x2x128x128xf32>
}
