/*===- gptc_emu.h - Extensions of gptc's emulated CUDA device ----*- C -*-===*
 *
 * The emulated libcuda.so.1 exports, next to the CUDA driver API, two
 * extensions: the counters of the calling process's most recent launch
 * (look it up with dlsym(handle, "gptcEmuGetLaunchCounters"); a real
 * driver does not have it) and the device-to-host address translation.
 * GPTC_EMU_STATS=1 prints the same counters on stderr after every launch
 * and a table of them per kernel at exit; GPTC_EMU_STATS_JSON=FILE writes
 * the per-kernel table, with each memory instruction's own counters, as
 * JSON at exit (docs/design/emu.md, "Counters").
 *
 *===----------------------------------------------------------------------===*/

#ifndef GPTC_EMU_GPTC_EMU_H
#define GPTC_EMU_GPTC_EMU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Executed instructions by class (warp-level, as Nsight Compute's
 * sm__inst_executed counts them). Division sequences are the PTX
 * instructions a GPU runs as a subroutine: integer div/rem, IEEE f32
 * div/sqrt/rcp. */
enum gptcEmuInstrClass {
  GPTC_EMU_FP32,    /* f32 arithmetic and comparisons */
  GPTC_EMU_FP16,    /* f16/bf16 (and x2) arithmetic */
  GPTC_EMU_FP64,    /* f64 arithmetic */
  GPTC_EMU_HMMA,    /* mma.sync: tensor cores */
  GPTC_EMU_INT32,   /* integer and bit operations up to 32 bits */
  GPTC_EMU_INT64,   /* 64-bit integer operations */
  GPTC_EMU_DIV32,   /* 32-bit div/rem; f32 div.rn, sqrt.rn, rcp.rn */
  GPTC_EMU_DIV64,   /* 64-bit div/rem (a call on a GPU) */
  GPTC_EMU_SFU,     /* ex2, lg2, sin, cos, tanh, rsqrt, approx rcp/sqrt */
  GPTC_EMU_CONVERT, /* cvt, cvta */
  GPTC_EMU_MOVE,    /* mov, selp, prmt */
  GPTC_EMU_GLOBAL,  /* ld/st/atom/red of global (or generic) memory,
                       cp.async */
  GPTC_EMU_SHARED,  /* ld/st/atom of shared memory, ldmatrix */
  GPTC_EMU_LOCAL,   /* ld/st of local memory (register spills) */
  GPTC_EMU_PARAM,   /* ld of parameters and constants */
  GPTC_EMU_WARP,    /* shfl, vote, redux, activemask */
  GPTC_EMU_BRANCH,  /* bra, call, ret, exit, trap */
  GPTC_EMU_BARRIER, /* bar.sync, bar.warp.sync, cp.async waits */
  GPTC_EMU_INSTR_CLASSES
};

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
  /* Warp-level global memory requests (one per executed ld/st/atom
   * instruction with an active lane) and the 32-byte sectors they touch;
   * a coalesced 4-byte load is 4 sectors a request, a strided one 32.
   * Counted from here to accumulatorRoundTrips only in profiled launches
   * (GPTC_EMU_STATS, GPTC_EMU_STATS_JSON or GPTC_EMU_PROFILE set). */
  uint64_t globalLoadRequests;
  uint64_t globalLoadSectors;
  uint64_t globalStoreRequests; /* stores, atomics and reductions */
  uint64_t globalStoreSectors;
  uint64_t partialStoreSectors; /* sectors a store request writes in part */
  uint64_t uniqueGlobalSectors; /* distinct sectors the launch touched */
  /* Shared memory: warp-level requests and the wavefronts they take (a
   * wavefront serves at most 32 banks x 4 bytes; a 32-way conflict is 32). */
  uint64_t sharedRequests;
  uint64_t sharedWavefronts;
  /* Global stores that write back the addresses the same warp loaded
   * earlier in the same loop iteration (an accumulator in memory). */
  uint64_t accumulatorRoundTrips;
  uint64_t classInstructions[GPTC_EMU_INSTR_CLASSES]; /* warp-level */
} gptcEmuLaunchCounters;

/* The name of an instruction class ("fp32", "div64", ...). */
const char *gptcEmuInstrClassName(int instrClass);

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
