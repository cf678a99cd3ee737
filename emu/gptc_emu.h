/*===- gptc_emu.h - Extensions of gptc's emulated CUDA device ----*- C -*-===*
 *
 * The emulated libcuda.so.1 exports, next to the CUDA driver API, two
 * extensions: the counters of the calling process's most recent launch
 * (look it up with dlsym(handle, "gptcEmuGetLaunchCounters"); a real
 * driver does not have it) and the device-to-host address translation.
 *GPTC_EMU_STATS=1 prints the same counters on stderr after every launch.
 *
 *===----------------------------------------------------------------------===*/

#ifndef GPTC_EMU_GPTC_EMU_H
#define GPTC_EMU_GPTC_EMU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gptcEmuLaunchCounters {
  uint64_t threadInstructions; /* instructions executed, summed over lanes */
  uint64_t warpInstructions;   /* instructions issued, per warp */
  uint64_t globalBytesLoaded;
  uint64_t globalBytesStored;   /* stores and atomics */
  uint64_t sharedBankConflicts; /* extra shared-memory wavefronts */
  uint64_t divergentBranches;   /* branches taken by part of a warp */
  double seconds;               /* host time the launch took */
  uint64_t sharedBytes;         /* shared memory loaded and stored */
  uint64_t localBytes;          /* local memory loaded and stored */
} gptcEmuLaunchCounters;

/* Copies the counters of the most recent kernel launch; returns 0
 * (CUDA_SUCCESS), or 1 (CUDA_ERROR_INVALID_VALUE) for a null pointer. */
int gptcEmuGetLaunchCounters(gptcEmuLaunchCounters *out);

/* The host address of [dev, dev + bytes) if the range lies inside one live
 * device allocation, else null: the emulated libcublasLt.so.13 computes on
 * device matrices through it. */
void *gptcEmuTranslate(uint64_t dev, uint64_t bytes);

/* For the emulated libraries beside the driver (cuBLASLt): if `stream` is
 * capturing a graph, records `run(context)` as its next node (returning 0
 * for success) and returns 1; `release(context)` frees the context with
 * the graph. Returns 0 when the stream is not capturing: run it now. */
int gptcEmuStreamRecord(struct CUstream_st *stream, int (*run)(void *),
                        void *context, void (*release)(void *));

#ifdef __cplusplus
}
#endif

#endif
