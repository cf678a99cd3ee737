// RUN: gptc-opt %s --gptc-lower-to-linalg --split-input-file | FileCheck %s

// rms_norm: one row reduction (sum of squares) and one elementwise kernel.
// CHECK-LABEL: func.func @rms_norm
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:           math.rsqrt
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @rms_norm(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %y = gpt.rms_norm %x weight %w : tensor<64xf32> eps = 1.000000e-06 : tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// attention: key bounds (i32 positions), then one flash kernel over (batch, head, query
// tile) work items with the K tile marked for shared memory; nothing of size
// T x T exists. Each row's log-sum-exp (m + log l) is stored, [B, H, T].
// CHECK-LABEL: func.func @attention
// CHECK-NOT:     256x256
// CHECK:         bufferization.to_buffer %arg3 read_only
// CHECK:         memref.alloc() : memref<2x256xi32>
// CHECK:         scf.parallel
// CHECK:         bufferization.to_buffer %arg0 read_only
// CHECK:         scf.parallel
// CHECK:           memref.alloca() {gptc.workgroup_tile} : memref<16x64xf32>
// The K tile is transposed in 8 x 8 blocks: 8 rows of 8 loaded, 3 rounds of
// 8 shuffles, 8 columns stored.
// CHECK-COUNT-8:     vector.load %{{.*}} : memref<2x4x256x16xf32{{.*}}>, vector<8xf32>
// CHECK-COUNT-24:    vector.shuffle
// CHECK-COUNT-8:     vector.store %{{.*}} : memref<16x64xf32>, vector<8xf32>
// CHECK:           math.exp
// CHECK:           %[[L:.*]] = math.log
// CHECK:           %[[LSE:.*]] = arith.addf %{{.*}}, %[[L]]
// CHECK:           memref.store %[[LSE]], %{{.*}} : memref<2x4x256xf32>
// CHECK-COUNT-2: bufferization.to_tensor {{.*}} restrict writable
// CHECK-NOT:     256x256
func.func @attention(%q: tensor<2x4x256x16xf32>, %k: tensor<2x4x256x16xf32>, %v: tensor<2x4x256x16xf32>, %tok: tensor<2x256xi32>, %w: tensor<i64>) -> (tensor<2x4x256x16xf32>, tensor<2x4x256xf32>) {
  %o, %lse = gpt.attention %q, %k, %v tokens %tok : tensor<2x256xi32> window %w : tensor<i64> mask = #gpt.mask<causal = true, window = tokens, bos = 7> scale = 2.500000e-01 : tensor<2x4x256x16xf32>
  return %o, %lse : tensor<2x4x256x16xf32>, tensor<2x4x256xf32>
}

// -----

// Rows of 12 elements are not whole 8 x 8 blocks: the K tile is transposed
// element by element.
// CHECK-LABEL: func.func @attention_head_dim_12
// CHECK:         memref.alloca() {gptc.workgroup_tile} : memref<12x64xf32>
// CHECK-NOT:     vector.shuffle
// CHECK:         return
func.func @attention_head_dim_12(%q: tensor<1x2x64x12xf32>, %k: tensor<1x2x64x12xf32>, %v: tensor<1x2x64x12xf32>) -> (tensor<1x2x64x12xf32>, tensor<1x2x64xf32>) {
  %o, %lse = gpt.attention %q, %k, %v mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 2.500000e-01 : tensor<1x2x64x12xf32>
  return %o, %lse : tensor<1x2x64x12xf32>, tensor<1x2x64xf32>
}

// -----

// attention_grad: dQ per query tile, dK and dV per key tile; the
// probabilities come from the forward's lse (read, not recomputed: no log
// anywhere in the backward), and rowsum(dO * O) is [B, H, T], not T x T.
// CHECK-LABEL: func.func @attention_grad
// CHECK-NOT:     256x256
// CHECK:         scf.parallel
// CHECK:         %[[LSE:.*]] = bufferization.to_buffer %arg4 read_only
// CHECK:         memref.alloc() : memref<2x4x256xf32>
// CHECK:         scf.parallel
// CHECK:           memref.load %[[LSE]][
// CHECK-NOT:       math.log
// dQ stages K and V, dK/dV Q and dO, each in 8 x 8 blocks of 24 shuffles.
// CHECK-COUNT-48:    vector.shuffle
// CHECK-NOT:       math.log
// CHECK:         scf.parallel
// CHECK-NOT:       math.log
// CHECK-COUNT-48:    vector.shuffle
// CHECK-NOT:       math.log
// CHECK-COUNT-3: bufferization.to_tensor
// CHECK-NOT:     256x256
func.func @attention_grad(%q: tensor<2x4x256x16xf32>, %k: tensor<2x4x256x16xf32>, %v: tensor<2x4x256x16xf32>, %o: tensor<2x4x256x16xf32>, %lse: tensor<2x4x256xf32>, %do: tensor<2x4x256x16xf32>) -> (tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>) {
  %g:3 = gpt.attention_grad %q, %k, %v, %o, %lse, %do mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 2.500000e-01 : tensor<2x4x256x16xf32>
  return %g#0, %g#1, %g#2 : tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>
}

// -----

// rms_norm_grad: both row sums (x^2 and g w x) in one reduction kernel with
// two results, then one elementwise kernel.
// CHECK-LABEL: func.func @rms_norm_grad
// CHECK:         %[[S:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:           linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}}ins({{.*}}%[[S]]#0, %[[S]]#1
// CHECK:           math.rsqrt
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @rms_norm_grad(%x: tensor<8x64xf32>, %g: tensor<8x64xf32>, %w: tensor<64xf32>) -> tensor<8x64xf32> {
  %dx = gpt.rms_norm_grad %x, %g weight %w : tensor<64xf32> eps = 1.000000e-06 : tensor<8x64xf32>
  return %dx : tensor<8x64xf32>
}

// -----

// cross_entropy: one kernel over the 16 rows (positions collapsed), each
// a max pass and a sum-of-exp pass over its 512 logits; one value per row.
// CHECK-LABEL: func.func @cross_entropy
// CHECK:         memref.collapse_shape {{.*}} : memref<2x8x512xf32> into memref<16x512xf32>
// CHECK:         scf.parallel (%[[R:.*]]) = (%{{.*}}) to (%c16{{.*}})
// CHECK:           scf.for {{.*}} iter_args
// CHECK:             arith.maximumf
// CHECK:           scf.for {{.*}} iter_args
// CHECK:             math.exp
// CHECK:             arith.addf {{.*}} fastmath<reassoc>
// CHECK:           math.log
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @cross_entropy(%l: tensor<2x8x512xf32>, %t: tensor<2x8xi32>) -> tensor<2x8xf32> {
  %nll = gpt.cross_entropy %l[%t] : tensor<2x8x512xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  return %nll : tensor<2x8xf32>
}

// -----

// cross_entropy_grad: the same row kernel (max, sum of exp) then one pass
// writing g * softmax, g subtracted at the target: no one-hot tensor (no
// scatter, no fill of the logits' shape), no compare against the max.
// CHECK-LABEL: func.func @cross_entropy_grad
// CHECK-NOT:     linalg.fill
// CHECK:         scf.parallel
// CHECK:           arith.maximumf
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:           arith.divf
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             arith.mulf
// CHECK:             arith.cmpi eq
// CHECK:             arith.subf
// CHECK:             arith.select
// CHECK:             memref.store
// CHECK-NOT:     arith.cmpf
// CHECK-NOT:     linalg.
// CHECK:         return
func.func @cross_entropy_grad(%l: tensor<16x512xf32>, %t: tensor<16xi64>, %g: tensor<16xf32>) -> tensor<16x512xf32> {
  %d = gpt.cross_entropy_grad %l[%t], %g : tensor<16x512xf32>, tensor<16xi64>, tensor<16xf32>
  return %d : tensor<16x512xf32>
}

// -----

// A softcapped cross-entropy over bf16 logits: the max over the raw
// logits (then capped once), the softcap 30 tanh(x / 30) recomputed in
// the sum pass, every value in f32; the softcapped logits never stored.
// CHECK-LABEL: func.func @softcap
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:             arith.extf {{.*}} : bf16 to f32
// CHECK-NEXT:        arith.maximumf
// CHECK:           math.tanh
// CHECK:           scf.for
// CHECK:             arith.extf
// CHECK:             math.tanh
// CHECK:             math.exp
// CHECK:           math.log
// CHECK:           memref.store {{.*}} : memref<16xf32>
// CHECK-NOT:     memref.alloc() : memref<16x512
// CHECK:         return
func.func @softcap(%l: tensor<16x512xbf16>, %t: tensor<16xi32>) -> tensor<16xf32> {
  %nll = gpt.cross_entropy %l[%t] softcap <kind = tanh, cap = 3.0e+01 : f64, scale = 0.033333333333333333 : f64> : tensor<16x512xbf16>, tensor<16xi32> -> tensor<16xf32>
  return %nll : tensor<16xf32>
}

// -----

// Its gradient goes through the sigmoid softcap in the writing pass, in
// the order of the separate ops' VJPs (times the cap, times y (1 - y),
// times the scale), and is stored in bf16.
// CHECK-LABEL: func.func @softcap_grad
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:           scf.for
// CHECK:             arith.select
// CHECK:             arith.mulf %{{.*}}, %[[CAP:.*]] : f32
// CHECK:             arith.negf
// CHECK:             arith.addf
// CHECK:             arith.mulf
// CHECK:             arith.mulf
// CHECK:             arith.mulf
// CHECK:             arith.truncf {{.*}} : f32 to bf16
// CHECK:             memref.store {{.*}} : memref<16x512xbf16>
// CHECK:         return
func.func @softcap_grad(%l: tensor<16x512xbf16>, %t: tensor<16xi64>, %g: tensor<16xf32>) -> tensor<16x512xbf16> {
  %d = gpt.cross_entropy_grad %l[%t], %g softcap <kind = sigmoid, cap = 3.0e+01 : f64, scale = 0.5 : f64> : tensor<16x512xbf16>, tensor<16xi64>, tensor<16xf32>
  return %d : tensor<16x512xbf16>
}

// -----

// A cross-entropy and its gradient over the same logits and targets: the
// forward keeps each row's max and sum ([16, 2]) and the gradient reads
// them, one pass over its logits instead of three.
// CHECK-LABEL: func.func @loss_and_grad
// CHECK:         %[[STATS:.*]] = memref.alloc() {{.*}}: memref<16x2xf32>
// CHECK:         scf.parallel
// CHECK:           arith.maximumf
// CHECK:           math.exp
// CHECK:           math.log
// CHECK:           memref.store %{{.*}}, %[[STATS]][%{{.*}}, %c0{{.*}}] : memref<16x2xf32>
// CHECK:           memref.store %{{.*}}, %[[STATS]][%{{.*}}, %c1{{.*}}] : memref<16x2xf32>
// CHECK:         scf.parallel
// CHECK-NOT:       arith.maximumf
// CHECK:           memref.load %{{.*}}[%{{.*}}, %c0{{.*}}] : memref<16x2xf32>
// CHECK:           memref.load %{{.*}}[%{{.*}}, %c1{{.*}}] : memref<16x2xf32>
// CHECK-NOT:       arith.maximumf
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             memref.store
// CHECK-NOT:     scf.for
// CHECK:         return
func.func @loss_and_grad(%l: tensor<16x512xf32>, %t: tensor<16xi32>, %g: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x512xf32>) {
  %nll = gpt.cross_entropy %l[%t] : tensor<16x512xf32>, tensor<16xi32> -> tensor<16xf32>
  %d = gpt.cross_entropy_grad %l[%t], %g : tensor<16x512xf32>, tensor<16xi32>, tensor<16xf32>
  return %nll, %d : tensor<16xf32>, tensor<16x512xf32>
}

// -----

// Must not fire: other targets (another loss over the same logits), so
// the gradient computes its own statistics.
// CHECK-LABEL: func.func @grad_of_other_targets
// CHECK-NOT:     memref<16x2xf32>
// CHECK:         scf.parallel
// CHECK:         scf.parallel
// CHECK:           arith.maximumf
// CHECK:         return
func.func @grad_of_other_targets(%l: tensor<16x512xf32>, %t: tensor<16xi32>, %u: tensor<16xi32>, %g: tensor<16xf32>) -> (tensor<16xf32>, tensor<16x512xf32>) {
  %nll = gpt.cross_entropy %l[%t] : tensor<16x512xf32>, tensor<16xi32> -> tensor<16xf32>
  %d = gpt.cross_entropy_grad %l[%u], %g : tensor<16x512xf32>, tensor<16xi32>, tensor<16xf32>
  return %nll, %d : tensor<16xf32>, tensor<16x512xf32>
}

// -----

// rotary: x viewed as [..., 2, D/2], one elementwise kernel reading both
// halves (constant 0 and 1 in their maps) and the broadcast tables, the
// half written chosen by the index of the pair.
// CHECK-DAG: #[[X1:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, d4)>
// CHECK-DAG: #[[X2:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 1, d4)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, d1, 0, d4)>
// CHECK-LABEL: func.func @rotary
// CHECK:         tensor.expand_shape {{.*}} into tensor<2x8x2x2x8xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[X1]], #[[X2]], #[[T]], #[[T]], #{{.*}}]
// CHECK-NEXT:      ^bb0(%[[A:[a-z_0-9]+]]: f32, %[[B:[a-z_0-9]+]]: f32, %[[C:[a-z_0-9]+]]: f32, %[[S:[a-z_0-9]+]]: f32,
// CHECK-NEXT:      %[[X1C:.*]] = arith.mulf %[[A]], %[[C]]
// CHECK-NEXT:      %[[X2S:.*]] = arith.mulf %[[B]], %[[S]]
// CHECK-NEXT:      %[[X2C:.*]] = arith.mulf %[[B]], %[[C]]
// CHECK-NEXT:      %[[X1S:.*]] = arith.mulf %[[A]], %[[S]]
// CHECK:           %[[Y1:.*]] = arith.addf %[[X1C]], %[[X2S]]
// CHECK:           %[[Y2:.*]] = arith.subf %[[X2C]], %[[X1S]]
// CHECK:           %[[P:.*]] = linalg.index 3
// CHECK:           arith.select %{{.*}}, %[[Y1]], %[[Y2]]
// CHECK-NOT:     linalg.generic
// CHECK:         tensor.collapse_shape
func.func @rotary(%x: tensor<2x8x2x16xf32>, %c: tensor<1x8x1x8xf32>, %s: tensor<1x8x1x8xf32>) -> tensor<2x8x2x16xf32> {
  %y = gpt.rotary %x, %c, %s : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
  return %y : tensor<2x8x2x16xf32>
}

// -----

// The inverse (the VJP): y1 = x1 c - x2 s, y2 = x2 c + x1 s.
// CHECK-LABEL: func.func @rotary_inverse
// CHECK:           %[[Y1:.*]] = arith.subf
// CHECK:           %[[Y2:.*]] = arith.addf
// CHECK:           arith.select %{{.*}}, %[[Y1]], %[[Y2]]
func.func @rotary_inverse(%x: tensor<2x8x2x16xf32>, %c: tensor<1x8x1x8xf32>, %s: tensor<1x8x1x8xf32>) -> tensor<2x8x2x16xf32> {
  %y = gpt.rotary %x, %c, %s inverse : tensor<2x8x2x16xf32>, tensor<1x8x1x8xf32>
  return %y : tensor<2x8x2x16xf32>
}
