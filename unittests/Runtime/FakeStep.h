/*===- FakeStep.h - The arena layout of the fake step -------------*- C -*-===
 *
 * A stand-in for a compiled step: a bigram model (logits = onehot(token) W,
 * W [V, V]) trained with SGD, whose GEMMs go through gptc_gemm_f32. Built as
 * a MODULE (_mlir_ciface_gptc_* entry points, for dlopen) and into the test
 * executable (fake_* entry points, for StepLibrary's in-process
 * constructor). A bad arena descriptor makes the loss NaN.
 *
 *===----------------------------------------------------------------------===*/

#ifndef GPTC_UNITTESTS_RUNTIME_FAKESTEP_H
#define GPTC_UNITTESTS_RUNTIME_FAKESTEP_H

#include "runtime/gptrt.h"

#include <stdint.h>

#define FAKE_V 16
#define FAKE_B 2
#define FAKE_T 8
#define FAKE_ACCUM 2
#define FAKE_STEPS 40 /* training.steps, the default run length */
#define FAKE_LR 4.0f

/* Byte offsets of the slots (64-byte aligned). */
#define FAKE_OFF_TOKENS 0         /* i32 [B, T] */
#define FAKE_OFF_TARGETS 64       /* i32 [B, T] */
#define FAKE_OFF_STEP 128         /* i64 [] */
#define FAKE_OFF_LOSS 192         /* f32 [] */
#define FAKE_OFF_EVAL_LOSS 256    /* f32 [] */
#define FAKE_OFF_LR_MULT 320      /* f32 [] */
#define FAKE_OFF_W 384            /* f32 [V, V] param.w */
#define FAKE_OFF_GRAD_W 1408      /* f32 [V, V] grad.w */
#define FAKE_OFF_TOTAL_STEPS 2432 /* i64 [] the run's length */
#define FAKE_ARENA_BYTES 2496

#ifdef __cplusplus
extern "C" {
#endif
void fake_grad_step(gptc_arena_ref *arena);
void fake_update_step(gptc_arena_ref *arena);
void fake_eval_step(gptc_arena_ref *arena);
/* Calls of fake_update_step since the process started. */
extern int64_t fake_update_calls;
#ifdef __cplusplus
}
#endif

#endif /* GPTC_UNITTESTS_RUNTIME_FAKESTEP_H */
