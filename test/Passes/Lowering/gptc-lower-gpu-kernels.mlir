// gptc-lower-to-linalg{gpu-kernels column-embedding-grad}: the kernels the CUDA target gets
// instead of the CPU's (the default run below must not produce them).
// RUN: gptc-opt %s --gptc-lower-to-linalg="gpu-kernels=true column-embedding-grad=true" --split-input-file | FileCheck %s
// RUN: gptc-opt %s --gptc-lower-to-linalg --split-input-file | FileCheck %s --check-prefix=CPU

// embedding_grad: one kernel over slices of the table's rows and its 4
// columns (16 rows: one slice); each work item zeroes its rows of its
// column, then adds the rows of the positions whose id is in its slice, in
// position order (no host loop, no two work items writing one element).
// CHECK-LABEL: func.func @embedding_grad
// CHECK-DAG: %[[G:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<6x4xf32> to memref<6x4xf32>
// CHECK-DAG: %[[IDS:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<6xi32> to memref<6xi32>
// CHECK: %[[T:.*]] = memref.alloc() : memref<16x4xf32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.parallel (%[[S:.*]], %[[D:.*]]) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %[[C4]])
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[S]], %[[C16]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[FIRST]], %[[C16]]
// CHECK-NEXT: %[[END:.*]] = arith.minsi %[[NEXT]], %[[C16]]
// CHECK-NEXT: scf.for %[[V:.*]] = %[[FIRST]] to %[[END]]
// CHECK-NEXT: memref.store %{{.*}}, %[[T]][%[[V]], %[[D]]]
// CHECK: scf.for %[[N:.*]] =
// CHECK-NEXT: %[[ID:.*]] = memref.load %[[IDS]][%[[N]]]
// CHECK-NEXT: %[[ROW:.*]] = arith.index_cast %[[ID]]
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi sge, %[[ROW]], %[[FIRST]]
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi slt, %[[ROW]], %[[END]]
// CHECK-NEXT: %[[MINE:.*]] = arith.andi %[[GE]], %[[LT]]
// CHECK-NEXT: scf.if %[[MINE]]
// CHECK-NEXT: %[[OLD:.*]] = memref.load %[[T]][%[[ROW]], %[[D]]]
// CHECK-NEXT: %[[X:.*]] = memref.load %[[G]][%[[N]], %[[D]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]]
// CHECK-NEXT: memref.store %[[NEW]], %[[T]][%[[ROW]], %[[D]]]
// CHECK: bufferization.to_tensor %[[T]] restrict writable
// CPU-LABEL: func.func @embedding_grad
// CPU-NOT: scf.parallel
// CPU: scf.for {{.*}} iter_args
// CPU: tensor.insert_slice
func.func @embedding_grad(%g: tensor<2x3x4xf32>, %ids: tensor<2x3xi32>) -> tensor<16x4xf32> {
  %0 = gpt.embedding_grad %g[%ids] : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// A table of 256 rows and 8 columns: 4 slices of 64 rows (at least 64 rows
// per slice), 32 work items.
// CHECK-LABEL: func.func @embedding_grad_slices
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: scf.parallel (%[[S:.*]], %{{.*}}) = (%{{.*}}, %{{.*}}) to (%[[C4]], %[[C8]])
// CHECK-NEXT: arith.muli %[[S]], %[[C64]]
func.func @embedding_grad_slices(%g: tensor<2x3x8xf32>, %ids: tensor<2x3xi32>) -> tensor<256x8xf32> {
  %0 = gpt.embedding_grad %g[%ids] : tensor<2x3x8xf32>, tensor<2x3xi32> -> tensor<256x8xf32>
  return %0 : tensor<256x8xf32>
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
// CHECK: gpt.block_barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to %{{.*}} step %{{.*}} {
// CHECK: memref.store %{{.*}}, %[[VT]]
// CHECK: gpt.block_barrier
// CHECK-NEXT: %[[MINE:.*]] = arith.cmpi slt, %[[TID]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[MINE]]
// CHECK: memref.load %[[KT]]
// CHECK: math.exp
// CHECK: memref.load %[[VT]]
// CHECK: gpt.block_barrier
// CHECK-NEXT: } {gptc.masked_span = array<i64: 256, 128, 1>}
// CHECK-NOT: gpt.block_barrier
// CHECK: bufferization.to_tensor {{.*}} restrict writable
// CPU-LABEL: func.func @attention
// CPU-NOT: gpt.block_barrier
// CPU: memref.alloca() {gptc.workgroup_tile} : memref<16x64xf32>
// CPU-NOT: gpt.block_barrier
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
// CHECK: gpt.block_barrier
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<16x32xf32>
// CHECK: gpt.block_barrier
// CHECK-COUNT-3: bufferization.to_tensor
// CPU-LABEL: func.func @attention_grad
// CPU-NOT: gpt.block_barrier
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
// CHECK-COUNT-9: gpt.block_barrier
// CHECK: memref.load %[[MAX]][%c0
// CHECK: gpt.block_barrier
// CHECK: math.exp
// CHECK: memref.alloca() {gptc.workgroup_tile} : memref<256xf32>
// CHECK-COUNT-10: gpt.block_barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c512{{.*}} step %c256
// CHECK: arith.truncf
// CHECK: memref.store
// CHECK-NOT: gpt.block_barrier
// CHECK: return
// CPU-LABEL: func.func @cross_entropy_grad
// CPU-NOT: gpt.block_barrier
// CPU-NOT: gptc.workgroup_tile
// CPU: return
func.func @cross_entropy_grad(%l: tensor<16x512xbf16>, %t: tensor<16xi64>, %g: tensor<16xf32>) -> tensor<16x512xbf16> {
  %d = gpt.cross_entropy_grad %l[%t], %g softcap <kind = tanh, cap = 3.0e+01 : f64, scale = 0.033333333333333333 : f64> : tensor<16x512xbf16>, tensor<16xi64>, tensor<16xf32>
  return %d : tensor<16x512xbf16>
}
