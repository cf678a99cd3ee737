// gptc-lower-to-linalg{gpu-kernels sorted-embedding-grad}: the kernels the CUDA target gets
// instead of the CPU's (the default run below must not produce them).
// RUN: gptc-opt %s --gptc-lower-to-linalg="gpu-kernels=true sorted-embedding-grad=true" --split-input-file | FileCheck %s
// RUN: gptc-opt %s --gptc-lower-to-linalg --split-input-file | FileCheck %s --check-prefix=CPU

// embedding_grad: the positions sorted by token once for both gradients of
// the same ids (keys id * 6 + position, padded to 8 with INT64_MAX; a
// bitonic sort of 3 * 4 / 2 = 6 stages, one launch each from a host loop;
// starts[v] by bisection), then per table a work item per row and 4
// columns adding its positions' rows in position order (no atomics, no
// two work items writing one element).
// CHECK-LABEL: func.func @embedding_grad
// CHECK: %[[IDS:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<6xi32> to memref<6xi32>
// CHECK: %[[KEYS:.*]] = memref.alloc() : memref<8xi64>
// CHECK: scf.parallel
// CHECK: memref.load %[[IDS]]
// CHECK: %[[MAX:.*]] = arith.constant 9223372036854775807 : index
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[MAX]]
// CHECK: memref.store %{{.*}}, %[[KEYS]]
// CHECK: %[[STAGES:.*]] = arith.constant 6 : index
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %[[STAGES]]
// CHECK: scf.parallel
// CHECK: %[[LO:.*]] = arith.ori
// CHECK: %[[HI:.*]] = arith.ori %[[LO]],
// CHECK: %[[A:.*]] = memref.load %[[KEYS]][%[[LO]]]
// CHECK: %[[B:.*]] = memref.load %[[KEYS]][%[[HI]]]
// CHECK-NEXT: %[[MIN:.*]] = arith.minsi %[[A]], %[[B]] : i64
// CHECK-NEXT: %[[MAX:.*]] = arith.maxsi %[[A]], %[[B]] : i64
// CHECK-NEXT: %[[FIRST:.*]] = arith.select %[[UP:.*]], %[[MIN]], %[[MAX]]
// CHECK-NEXT: memref.store %[[FIRST]], %[[KEYS]][%[[LO]]]
// CHECK-NEXT: %[[SECOND:.*]] = arith.select %[[UP]], %[[MAX]], %[[MIN]]
// CHECK-NEXT: memref.store %[[SECOND]], %[[KEYS]][%[[HI]]]
// CHECK: %[[STARTS:.*]] = memref.alloc() : memref<17xi32>
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[STARTS]]
// CHECK: %[[G:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<6x4xf32> to memref<6x4xf32>
// CHECK: %[[T:.*]] = memref.alloc() : memref<16x4xf32>
// CHECK: scf.parallel
// CHECK: %[[FIRST:.*]] = memref.load %[[STARTS]]
// CHECK: %[[END:.*]] = memref.load %[[STARTS]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4xf32>)
// CHECK-NEXT: %[[KEY:.*]] = memref.load %[[KEYS]][%[[I]]]
// CHECK: %[[ROW:.*]] = vector.load %[[G]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<6x4xf32>, vector<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[ROW]] : vector<4xf32>
// CHECK: } {gptc.segments = array<i64: 6, 16>}
// CHECK: vector.store %{{.*}}, %[[T]][%{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK: bufferization.to_tensor %[[T]] restrict writable
// The second table's sum reads the same keys and starts: no second sort.
// CHECK-NOT: memref<8xi64>
// CHECK: memref.alloc() : memref<8x4xf32>
// CHECK: memref.load %[[STARTS]]
// CHECK: memref.load %[[KEYS]]
// CHECK: {gptc.segments = array<i64: 6, 8>}
// CPU-LABEL: func.func @embedding_grad
// CPU-NOT: scf.parallel
// CPU-NOT: xi64>
// CPU: scf.for {{.*}} iter_args
// CPU: tensor.insert_slice
func.func @embedding_grad(%g: tensor<2x3x4xf32>, %ids: tensor<2x3xi32>, %g2: tensor<2x3x4xf32>) -> (tensor<16x4xf32>, tensor<8x4xf32>) {
  %0 = gpt.embedding_grad %g[%ids] : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<16x4xf32>
  %1 = gpt.embedding_grad %g2[%ids] : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<8x4xf32>
  return %0, %1 : tensor<16x4xf32>, tensor<8x4xf32>
}

// -----

// Rows of 6 columns (not a multiple of 4): a work item per element; 8
// positions need no padding (8 keys, 3 * 4 / 2 = 6 stages); other ids,
// another sort.
// CHECK-LABEL: func.func @embedding_grad_scalar
// CHECK: memref.alloc() : memref<8xi64>
// CHECK: memref.alloc() : memref<8xi64>
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[X:.*]] = memref.load %{{.*}} : memref<8x6xf32>
// CHECK-NEXT: arith.addf %[[ACC]], %[[X]] : f32
// CHECK: } {gptc.segments = array<i64: 8, 32>}
func.func @embedding_grad_scalar(%g: tensor<8x6xf32>, %ids: tensor<8xi32>, %other: tensor<8xi32>) -> (tensor<32x6xf32>, tensor<32x6xf32>) {
  %0 = gpt.embedding_grad %g[%ids] : tensor<8x6xf32>, tensor<8xi32> -> tensor<32x6xf32>
  %1 = gpt.embedding_grad %g[%other] : tensor<8x6xf32>, tensor<8xi32> -> tensor<32x6xf32>
  return %0, %1 : tensor<32x6xf32>, tensor<32x6xf32>
}

// -----

// attention: a work item per tile of 128 queries (2 x 4 x 2 = 16), a team
// of 128 threads (one per query row) inside it. Each tile of 32 keys is
// staged, K and V, in shared 16 x 32 tiles by all threads (strided by 128,
// element by element: not the CPU's 8 x 8 blocks of shuffles),
// each followed by a barrier; each thread computes its row if it has one,
// reading both from the shared tiles; a barrier again before the next
// tile. Row state is the thread's own (1 slot). The key-tile loop carries
// its span for the cost model (T 256, 128 rows, causal).
// CHECK-LABEL: func.func @attention
// CHECK: scf.parallel
// CHECK-DAG: %[[ITEMS:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[TEAM:.*]] = arith.constant 128 : index
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[ITEMS]]) step
// CHECK: scf.parallel (%[[TID:.*]]) = (%{{.*}}) to (%[[TEAM]]) step
// CHECK-NEXT: %[[KT:.*]] = memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK-NEXT: memref.alloca() : memref<32xf32>
// CHECK-NEXT: %[[VT:.*]] = memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: memref.alloca() : memref<1x16xf32>
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %{{.*}} {
// CHECK-NOT: vector.shuffle
// CHECK: memref.store %{{.*}}, %[[KT]]
// CHECK: gptgpu.block_barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %{{.*}} {
// CHECK: memref.store %{{.*}}, %[[VT]]
// CHECK: gptgpu.block_barrier
// CHECK-NEXT: %[[MINE:.*]] = arith.cmpi slt, %[[TID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[MINE]]
// CHECK: memref.load %[[KT]]
// CHECK: math.exp
// CHECK: memref.load %[[VT]]
// CHECK: gptgpu.block_barrier
// CHECK-NEXT: } {gptc.masked_span = array<i64: 256, 128, 1>}
// CHECK-NOT: gptgpu.block_barrier
// CHECK: bufferization.to_tensor {{.*}} restrict writable
// CPU-LABEL: func.func @attention
// CPU-NOT: gptgpu.block_barrier
// CPU: memref.alloca() {gptc.workgroup_tile} : memref<16x64xf32>
// CPU-NOT: gptgpu.block_barrier
// CPU: return
func.func @attention(%q: tensor<2x4x256x16xf32>, %k: tensor<2x4x256x16xf32>, %v: tensor<2x4x256x16xf32>, %tok: tensor<2x256xi32>, %w: tensor<i64>) -> (tensor<2x4x256x16xf32>, tensor<2x4x256xf32>) {
  %o, %lse = gpt.attention %q, %k, %v tokens %tok : tensor<2x256xi32> window %w : tensor<i64> mask = #gpt.mask<causal = true, window = tokens, bos = 7> scale = 2.500000e-01 : tensor<2x4x256x16xf32>
  return %o, %lse : tensor<2x4x256x16xf32>, tensor<2x4x256xf32>
}

// -----

// attention_grad: dQ (K and V tiles shared) and dK/dV (Q and dO tiles
// shared), each a team kernel with barriers after loading and after use.
// CHECK-LABEL: func.func @attention_grad
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: gptgpu.block_barrier
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: gptgpu.block_barrier
// CHECK-COUNT-3: bufferization.to_tensor
// CPU-LABEL: func.func @attention_grad
// CPU-NOT: gptgpu.block_barrier
// CPU: return
func.func @attention_grad(%q: tensor<2x4x256x16xf32>, %k: tensor<2x4x256x16xf32>, %v: tensor<2x4x256x16xf32>, %o: tensor<2x4x256x16xf32>, %lse: tensor<2x4x256xf32>, %do: tensor<2x4x256x16xf32>) -> (tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>) {
  %g:3 = gpt.attention_grad %q, %k, %v, %o, %lse, %do mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 2.500000e-01 : tensor<2x4x256x16xf32>
  return %g#0, %g#1, %g#2 : tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>, tensor<2x4x256x16xf32>
}

// -----

// cross_entropy_grad: a block of 256 threads per row (the rows loop, then
// the threads loop, the row's base offset between them), each thread
// taking every 256th logit of the collapsed buffer; the partial maxima and
// sums combined by a tree over a shared tile between barriers (256 -> 1 in
// 8 halvings, then every thread reads element 0); one writing pass.
// CHECK-LABEL: func.func @cross_entropy_grad
// CHECK: %[[FLAT:.*]] = memref.collapse_shape {{.*}} : memref<16x512xbf16> into memref<8192xbf16>
// CHECK: scf.parallel (%[[R:.*]]) = (%{{.*}}) to (%c16{{.*}})
// CHECK: %[[BASE:.*]] = arith.muli %[[R]], %c512
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256{{.*}})
// CHECK: scf.for %[[J:.*]] = %[[T]] to %c512{{.*}} step %c256
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %[[J]]
// CHECK: memref.load %[[FLAT]][%[[AT]]]
// CHECK: arith.maximumf
// CHECK: %[[MAX:.*]] = memref.alloca() {gptc.workgroup_tile} : memref<256xf32>
// CHECK-COUNT-9: gptgpu.block_barrier
// CHECK: memref.load %[[MAX]][%c0
// CHECK: gptgpu.block_barrier
// CHECK: math.exp
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<256xf32>
// CHECK-COUNT-10: gptgpu.block_barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c512{{.*}} step %c256
// CHECK: arith.truncf
// CHECK: memref.store
// CHECK-NOT: gptgpu.block_barrier
// CHECK: return
// CPU-LABEL: func.func @cross_entropy_grad
// CPU-NOT: gptgpu.block_barrier
// CPU-NOT: gptc.workgroup_tile
// CPU: return
func.func @cross_entropy_grad(%l: tensor<16x512xbf16>, %t: tensor<16xi64>, %g: tensor<16xf32>) -> tensor<16x512xbf16> {
  %d = gpt.cross_entropy_grad %l[%t], %g softcap <kind = tanh, cap = 3.0e+01 : f64, scale = 0.033333333333333333 : f64> : tensor<16x512xbf16>, tensor<16xi64>, tensor<16xf32>
  return %d : tensor<16x512xbf16>
}
