/*===- FakeStep.c - A bigram model behind the step ABI ------------*- C -*-===*/

#include "FakeStep.h"
#include "runtime/gptrt.h"

#include <math.h>
#include <string.h>

#ifdef FAKE_STEP_IN_PROCESS
#define ENTRY(name) fake_##name
int64_t fake_update_calls = 0;
#else
#define ENTRY(name) _mlir_ciface_gptc_##name
#define fake_update_calls fake_module_update_calls
int64_t fake_update_calls = 0;
/* The layout descriptor a step library exports (runtime/StepLayout.h). */
#include "FakeLayout.h"
const char gptc_step_layout[] = FAKE_LAYOUT;
const char gptc_step_layout_sha256[] = FAKE_LAYOUT_SHA256;
#endif

#define BT (FAKE_B * FAKE_T)

#define SLOT(type, off) ((type *)(arena + (off)))

/* The arena of the descriptor {base, base, 0, FAKE_ARENA_BYTES, 1}; for
 * any other descriptor, writes a NaN loss and returns null. */
static uint8_t *arenaOf(const gptc_arena_ref *ref) {
  if (ref->allocated == ref->aligned && ref->offset == 0 &&
      ref->size == FAKE_ARENA_BYTES && ref->stride == 1 &&
      ((uintptr_t)ref->aligned & 63) == 0)
    return ref->aligned;
  if (ref->aligned && ref->size >= FAKE_OFF_EVAL_LOSS + 4) {
    *(float *)(ref->aligned + FAKE_OFF_LOSS) = NAN;
    *(float *)(ref->aligned + FAKE_OFF_EVAL_LOSS) = NAN;
  }
  return 0;
}

/* logits = onehot(tokens) W; returns the mean loss; with `dlogits`, also
 * (softmax - onehot(targets)) * scale there. */
static float forward(uint8_t *arena, float *dlogits, float scale) {
  static float x[BT * FAKE_V], logits[BT * FAKE_V];
  const int32_t *tokens = SLOT(int32_t, FAKE_OFF_TOKENS);
  const int32_t *targets = SLOT(int32_t, FAKE_OFF_TARGETS);
  memset(x, 0, sizeof(x));
  for (int i = 0; i < BT; ++i)
    x[i * FAKE_V + tokens[i]] = 1.0f;
  for (int i = 0; i < BT * FAKE_V; ++i)
    logits[i] = NAN; /* beta 0 must not read C */
  gptc_gemm_f32(0, 0, BT, FAKE_V, FAKE_V, (uintptr_t)x, FAKE_V, 1, 0,
                (uintptr_t)SLOT(float, FAKE_OFF_W), FAKE_V, 1, 0, 1.0f, 0.0f, 0,
                0, 0, 0, (uintptr_t)logits, FAKE_V, 1, 0, 1);
  double total = 0.0;
  for (int i = 0; i < BT; ++i) {
    const float *z = logits + i * FAKE_V;
    float max = z[0];
    for (int v = 1; v < FAKE_V; ++v)
      max = z[v] > max ? z[v] : max;
    double sum = 0.0;
    for (int v = 0; v < FAKE_V; ++v)
      sum += exp((double)(z[v] - max));
    total += log(sum) + max - z[targets[i]];
    if (dlogits)
      for (int v = 0; v < FAKE_V; ++v)
        dlogits[i * FAKE_V + v] = (float)((exp((double)(z[v] - max)) / sum -
                                           (v == targets[i] ? 1.0 : 0.0)) *
                                          scale);
  }
  return (float)(total / BT);
}

void ENTRY(grad_step)(gptc_arena_ref *ref) {
  static float x[BT * FAKE_V], dlogits[BT * FAKE_V];
  uint8_t *arena = arenaOf(ref);
  if (!arena)
    return;
  const int32_t *tokens = SLOT(int32_t, FAKE_OFF_TOKENS);
  float loss = forward(arena, dlogits, 1.0f / (BT * FAKE_ACCUM));
  *SLOT(float, FAKE_OFF_LOSS) += loss / FAKE_ACCUM;
  memset(x, 0, sizeof(x));
  for (int i = 0; i < BT; ++i)
    x[i * FAKE_V + tokens[i]] = 1.0f;
  /* grad.w += x^T dlogits: A = x, stored [BT, V], read transposed. */
  gptc_gemm_f32(1, 0, FAKE_V, FAKE_V, BT, (uintptr_t)x, FAKE_V, 1, 0,
                (uintptr_t)dlogits, FAKE_V, 1, 0, 1.0f, 1.0f,
                (uintptr_t)SLOT(float, FAKE_OFF_GRAD_W), FAKE_V, 1, 0,
                (uintptr_t)SLOT(float, FAKE_OFF_GRAD_W), FAKE_V, 1, 0, 1);
}

void ENTRY(update_step)(gptc_arena_ref *ref) {
  uint8_t *arena = arenaOf(ref);
  if (!arena)
    return;
  int64_t step = *SLOT(int64_t, FAKE_OFF_STEP);
  /* Linear decay from 1 to 0.1 over the run's steps. */
  int64_t total = *SLOT(int64_t, FAKE_OFF_TOTAL_STEPS);
  float w = step >= total ? 0.0f : 1.0f - (float)step / (float)total;
  float mult = w + (1.0f - w) * 0.1f;
  *SLOT(float, FAKE_OFF_LR_MULT) = mult;
  float *p = SLOT(float, FAKE_OFF_W);
  const float *g = SLOT(float, FAKE_OFF_GRAD_W);
  for (int i = 0; i < FAKE_V * FAKE_V; ++i)
    p[i] -= FAKE_LR * mult * g[i];
  ++fake_update_calls;
}

void ENTRY(eval_step)(gptc_arena_ref *ref) {
  uint8_t *arena = arenaOf(ref);
  if (!arena)
    return;
  *SLOT(float, FAKE_OFF_EVAL_LOSS) = forward(arena, 0, 1.0f);
}
