// gpt.attention {products = bf16} on the CUDA target: q, k, v rounded to
// bf16 tensors and the tensor-core forward kernel (AttentionTensorCores.h):
// a block of 4 warps (128 threads) per 64 queries, K and V staged in two
// padded shared buffers each (2 x 64 keys x (32 + 8)) by cp.async
// (nvgpu.device_async_copy, 16 bytes; the first tile before the loop, each
// next one in the loop after its wait and barrier, while the current one
// computes), ldmatrix.x4 operands
// (two key or column tiles a load), gptgpu.warp_mma products, the scores
// masked in an scf.if (gptc.edge_tiles: only on the tiles a mask edge
// crosses) and scaled to base 2 (exp2), the row statistics shared over a
// quad by butterfly shuffles. Without the
// attribute, with a head dimension the mma's k does not divide, or on the
// CPU, the scalar kernels run, on q, k, v rounded to bf16 and back (and
// the probabilities rounded in the kernel).
// RUN: gptc-opt %s --gptc-lower-to-linalg="gpu-kernels=true" --split-input-file | FileCheck %s
// RUN: gptc-opt %s --gptc-lower-to-linalg --split-input-file | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @bf16_products
// CHECK-COUNT-3: arith.truncf %{{.*}} : f32 to bf16
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c32) step
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c128) step
// CHECK:             memref.alloca() {gptc.workgroup_tile} : memref<128x40xbf16, #gpu.address_space<workgroup>>
// CHECK:             nvgpu.device_async_copy {{.*}}, 8 {bypassL1} : memref<2x4x256x32xbf16> to memref<128x40xbf16, #gpu.address_space<workgroup>>
// CHECK:             gptgpu.async_copy_commit
// CHECK-NEXT:        gptgpu.async_copy_wait 0
// CHECK-NEXT:        gptgpu.block_barrier
// CHECK:             nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:             gptgpu.block_barrier
// CHECK:             nvgpu.device_async_copy
// CHECK:             gptgpu.async_copy_commit
// CHECK:             scf.for
// CHECK:               gptgpu.async_copy_wait 0
// CHECK-NEXT:          gptgpu.block_barrier
// CHECK:               scf.if
// CHECK:                 nvgpu.device_async_copy
// CHECK:                 gptgpu.async_copy_commit
// CHECK-NOT:           gptgpu.block_barrier
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:               gptgpu.warp_mma A[
// CHECK:               scf.if %{{.*}} -> (f32,
// CHECK-NEXT:            arith.mulf
// CHECK:               } else {
// CHECK:                 arith.select
// CHECK:               } {gptc.edge_tiles = 4 : i64}
// CHECK:               gpu.shuffle  xor
// CHECK:               math.exp2
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:               gptgpu.warp_mma A[
// CHECK-NOT:           gptgpu.block_barrier
// CHECK:               scf.yield
// CPU-LABEL: func.func @bf16_products
// CPU-COUNT-3: arith.extf %{{.*}} : bf16 to f32
// CPU-NOT:     gptgpu.warp_mma
// CPU-NOT:     nvgpu.ldmatrix
// CPU:         arith.truncf %{{.*}} : f32 to bf16
// CPU-NEXT:    arith.extf %{{.*}} : bf16 to f32
func.func @bf16_products(%q: tensor<2x4x256x32xf32>, %k: tensor<2x4x256x32xf32>, %v: tensor<2x4x256x32xf32>, %tok: tensor<2x256xi32>, %w: tensor<i64>) -> (tensor<2x4x256x32xf32>, tensor<2x4x256xf32>) {
  %o, %lse = gpt.attention %q, %k, %v tokens %tok : tensor<2x256xi32> window %w : tensor<i64> mask = #gpt.mask<causal = true, window = tokens, bos = 7> scale = 2.500000e-01 products = bf16 : tensor<2x4x256x32xf32>
  return %o, %lse : tensor<2x4x256x32xf32>, tensor<2x4x256xf32>
}

// -----

// Must not fire: exact f32 products.
// CHECK-LABEL: func.func @f32_products
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     gptgpu.warp_mma
// CHECK:         return
func.func @f32_products(%q: tensor<2x4x256x32xf32>, %k: tensor<2x4x256x32xf32>, %v: tensor<2x4x256x32xf32>) -> (tensor<2x4x256x32xf32>, tensor<2x4x256xf32>) {
  %o, %lse = gpt.attention %q, %k, %v mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 2.500000e-01 : tensor<2x4x256x32xf32>
  return %o, %lse : tensor<2x4x256x32xf32>, tensor<2x4x256xf32>
}

// -----

// Must not fire: head_dim 24 is not a multiple of the mma's k (16); the
// scalar kernel on rounded operands.
// CHECK-LABEL: func.func @head_dim_24
// CHECK-COUNT-3: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT:     gptgpu.warp_mma
// CHECK:         return
func.func @head_dim_24(%q: tensor<1x2x128x24xf32>, %k: tensor<1x2x128x24xf32>, %v: tensor<1x2x128x24xf32>) -> (tensor<1x2x128x24xf32>, tensor<1x2x128xf32>) {
  %o, %lse = gpt.attention %q, %k, %v mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 2.500000e-01 products = bf16 : tensor<1x2x128x24xf32>
  return %o, %lse : tensor<1x2x128x24xf32>, tensor<1x2x128xf32>
}

// -----

// The backward with bf16 products: dQ and dK/dV on tensor cores from q, k,
// v and dout in bf16 (dQ: S, dP = dout v^T and dq += ds k; dK/dV: S^T,
// dP^T, dv += p^T dout and dk += ds^T q, by gptgpu.warp_mma, a block of 64
// keys, 4 warps; the masks in scf.if regions on the edge tiles only); the
// CPU's scalar kernels on the rounded operands.
// CHECK-LABEL: func.func @bf16_grad
// CHECK-COUNT-4: arith.truncf %{{.*}} : f32 to bf16
// CHECK:         scf.parallel
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c128) step
// CHECK:             scf.for
// CHECK:               gptgpu.warp_mma A[
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true}
// CHECK:               gptgpu.warp_mma A[
// CHECK:         scf.parallel
// CHECK:           scf.parallel (%{{.*}}) = (%{{.*}}) to (%c128) step
// CHECK:             scf.for
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK:               gptgpu.warp_mma A[
// The dK/dV kernel's two accumulators fill the register file: its B
// fragments come one column tile a load (x2).
// CHECK:               nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK:               gptgpu.warp_mma A[
// CHECK-NOT:     arith.extf %{{.*}} : bf16 to f32
// CHECK:         return
// CPU-LABEL: func.func @bf16_grad
// CPU-COUNT-4: arith.extf %{{.*}} : bf16 to f32
// CPU-NOT:     gptgpu.warp_mma
// CPU:         return
func.func @bf16_grad(%q: tensor<2x4x256x32xf32>, %k: tensor<2x4x256x32xf32>, %v: tensor<2x4x256x32xf32>, %o: tensor<2x4x256x32xf32>, %lse: tensor<2x4x256xf32>, %do: tensor<2x4x256x32xf32>) -> (tensor<2x4x256x32xf32>, tensor<2x4x256x32xf32>, tensor<2x4x256x32xf32>) {
  %dq, %dk, %dv = gpt.attention_grad %q, %k, %v, %o, %lse, %do mask = #gpt.mask<causal = true, window = none, bos = -1> scale = 2.500000e-01 products = bf16 : tensor<2x4x256x32xf32>
  return %dq, %dk, %dv : tensor<2x4x256x32xf32>, tensor<2x4x256x32xf32>, tensor<2x4x256x32xf32>
}
