/*===- gptrt.h - The C ABI between a compiled step and the runtime -*- C -*-===
 *
 * A compiled training step (`step.so`, written by `gptc compile SPEC -o OUT`
 * beside `manifest.json`) keeps ALL of its state in one byte buffer, the
 * *arena*, laid out by the compiler. The manifest gives every slot's byte
 * offset, shape and dtype; the runtime allocates the arena (64-byte
 * aligned), fills the input slots and calls the entry points, which take
 * the arena as an MLIR memref descriptor (`gptc_arena_ref`, below; the
 * exported symbols are `_mlir_ciface_<name>`, MLIR's C interface):
 *
 *   gptc_grad_step(arena)
 *       forward + backward on the micro-batch in `tokens`/`targets`:
 *       grad.P   += dloss/dP / grad_accum     for every parameter P
 *       loss     += loss / grad_accum
 *       (with grad_accum = 1: grad.P = dloss/dP and loss = loss, no read
 *       of the old values)
 *   gptc_update_step(arena)
 *       the optimizer update for step `step` (0-based), reading grad.*,
 *       writing the parameters and optimizer state; it does NOT clear the
 *       gradients (with grad_accum > 1 the runtime zeroes grad.* and loss
 *       before the next step, after any cross-rank all-reduce of grad.*).
 *   gptc_eval_step(arena)
 *       forward only: eval_loss = mean loss on `tokens`/`targets`.
 *   gptc_logits_step(arena)
 *       forward only: logits[b] = the head's f32 logits at position
 *       sample_pos[b] of row b of `tokens` (`gptc sample`; causal, so
 *       what follows the position does not matter).
 *
 * Slots (names in the manifest):
 *   tokens, targets   int32 [B, T]     inputs and next-token targets
 *   step              int64 []         optimizer step counter (the
 *                                      schedules -- lr, momentum, the
 *                                      attention window -- are computed
 *                                      from it inside the step)
 *   loss, eval_loss   f32 []
 *   param_sq_norms    f32 [G]          after gptc_update_step: each optimizer
 *                                      group's sum of squared parameters
 *                                      (groups in the order of their first
 *                                      parameter in the manifest)
 *   sample_pos        int32 [B]        gptc_logits_step's positions
 *   logits            f32 [B, V]       its result (V: the padded vocab)
 *   param.NAME        f32/f64 shape    parameters (Parameters.h names)
 *   grad.NAME         same             accumulated gradients
 *   state.NAME.KIND   same             optimizer state (adam m / v, muon
 *                                      momentum buffer)
 *
 * The generated code calls back into the runtime only for GEMMs, for
 * the SVD backend of Muon and for communication between ranks, through
 * the functions below (OpenBLAS on the
 * CPU). GEMM pointers are passed as integers (uintptr_t). Each matrix X is
 * given by its address, its row and column strides and the stride between
 * the matrices of a batch, all in elements; op(X) transposes X when trans_x
 * is non-zero:
 *   D[b] = alpha op(A[b]) op(B[b]) + beta C[b]   for b < batch, with
 *   op(A) m x k, op(B) k x n, C and D m x n,
 * the epilogue of cuBLASLt's matmul: products accumulate in f32 (f64 for
 * f64), alpha and beta apply in that precision and D is rounded once. C is
 * not read when beta is 0 (it may be null then); C is either D itself
 * (same address and strides) or does not overlap it; D overlaps neither A
 * nor B.
 *
 *===----------------------------------------------------------------------===*/

#ifndef GPTC_RUNTIME_GPTRT_H
#define GPTC_RUNTIME_GPTRT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPTC_GEMM_ARGS(T)                                                      \
  int64_t trans_a, int64_t trans_b, int64_t m, int64_t n, int64_t k,           \
      uintptr_t a, int64_t a_rs, int64_t a_cs, int64_t a_bs, uintptr_t b,      \
      int64_t b_rs, int64_t b_cs, int64_t b_bs, T alpha, T beta, uintptr_t c,  \
      int64_t c_rs, int64_t c_cs, int64_t c_bs, uintptr_t d, int64_t d_rs,     \
      int64_t d_cs, int64_t d_bs, int64_t batch

void gptc_gemm_f32(GPTC_GEMM_ARGS(float));
void gptc_gemm_f64(GPTC_GEMM_ARGS(double));
/* bf16 operands and result (uint16 storage), f32 accumulation. */
void gptc_gemm_bf16(GPTC_GEMM_ARGS(float));
/* bf16 operands (uint16 storage), f32 C and D (the partial products of a
 * split sum, gptc-split-k). */
void gptc_gemm_bf16_f32(GPTC_GEMM_ARGS(float));

/* A batch of matrices as a 3-D memref descriptor (MLIR's
 * StridedMemRefType<T, 3>): sizes = {batch, rows, cols}, element [b][i][j]
 * at aligned[offset + b*strides[0] + i*strides[1] + j*strides[2]]. */
typedef struct gptc_matrices_f32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} gptc_matrices_f32;

typedef struct gptc_matrices_f64 {
  double *allocated;
  double *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} gptc_matrices_f64;

/* The SVD backend (optim.svd_orthogonalize): out[b] = U V^T for every
 * in[b] = U S V^T (thin SVD), computed in f64; in and out have the same
 * sizes and do not overlap. A matrix with a non-finite element gives NaNs.
 * Called through MLIR's C interface, hence the _mlir_ciface_ prefix. */
void _mlir_ciface_gptc_svd_orthogonalize_f32(gptc_matrices_f32 *in,
                                             gptc_matrices_f32 *out);
void _mlir_ciface_gptc_svd_orthogonalize_f64(gptc_matrices_f64 *in,
                                             gptc_matrices_f64 *out);

/* Communication between data-parallel ranks (the comm dialect, lowered by
 * gptc-lower-comm). Buffers are contiguous, given by address (uintptr_t,
 * device pointers on a GPU) and element count; dtype is a GPTC_DTYPE_*
 * code, kind a comm::ReductionKind value (sum 0, avg 1, max 2, min 3,
 * prod 4). With one rank every call is a copy.
 *
 *   gptc_comm_all_reduce_start(kind, dtype, in, out, count) -> handle
 *       starts out = reduce over ranks of in; in and out must stay
 *       untouched until gptc_comm_wait(handle, in, out) returns. The
 *       runtime may hold a start back to pack it with later ones into one
 *       bucket (runtime/comm/Collectives.h); wait issues what is held.
 *   gptc_comm_all_gather(dtype, in, out, count)
 *       out = concatenation of every rank's `count` elements, rank order.
 *   gptc_comm_shard(in, out, bytes)
 *       out = bytes [rank * bytes, (rank + 1) * bytes) of in.
 *
 * A failed collective ends the job (every rank) with a message naming the
 * rank: the step has no error path. */
enum {
  GPTC_DTYPE_F32 = 0,
  GPTC_DTYPE_BF16 = 1,
  GPTC_DTYPE_F64 = 2,
  GPTC_DTYPE_I32 = 3,
  GPTC_DTYPE_I64 = 4
};
int64_t gptc_comm_all_reduce_start(int64_t kind, int64_t dtype, uintptr_t in,
                                   uintptr_t out, int64_t count);
void gptc_comm_wait(int64_t handle, uintptr_t in, uintptr_t out);
void gptc_comm_all_gather(int64_t dtype, uintptr_t in, uintptr_t out,
                          int64_t count);
void gptc_comm_shard(uintptr_t in, uintptr_t out, int64_t bytes);

/* A 1-D memref<N x i8> descriptor of the arena: pass
 * {arena, arena, 0, arena_bytes, 1}. */
typedef struct gptc_arena_ref {
  uint8_t *allocated;
  uint8_t *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;
} gptc_arena_ref;

/* The entry points, resolved as _mlir_ciface_gptc_grad_step etc. */
typedef void (*gptc_step_fn)(gptc_arena_ref *arena);

#ifdef __cplusplus
}
#endif

#endif /* GPTC_RUNTIME_GPTRT_H */
