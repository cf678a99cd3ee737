//===- CostModel.h - H100 occupancy and roofline of `--stats` ---*- C++ -*-===//
//
// The arithmetic of the cost report of `gptc compile --target=cuda --stats`
// (docs/design/cuda.md, "The cost model of --stats"): occupancy of a kernel
// on an H100 SXM (sm_90) from its block size, registers and shared memory,
// and roofline times of kernels and GEMMs from FLOPs and bytes moved. Pure
// functions of numbers, no MLIR, so that unit tests check them on
// hand-computed cases.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_COSTMODEL_H
#define GPTC_DRIVER_REPORT_COSTMODEL_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gptc::cost {

/// NVIDIA H100 SXM5 (datasheet; CUDA occupancy calculator for sm_90).
struct H100 {
  static constexpr int64_t kSMs = 132;
  static constexpr int64_t kRegistersPerSM = 65536;
  static constexpr int64_t kThreadsPerSM = 2048;
  static constexpr int64_t kWarpsPerSM = kThreadsPerSM / 32;
  static constexpr int64_t kBlocksPerSM = 32;
  static constexpr int64_t kMaxThreadsPerBlock = 1024;
  static constexpr int64_t kSharedPerSM = 228 * 1024;
  static constexpr int64_t kSharedReservedPerBlock = 1024;
  static constexpr int64_t kSharedGranularity = 128;
  static constexpr int64_t kRegisterGranularity = 256; ///< per warp
  static constexpr int64_t kMaxRegistersPerThread = 255;
  static constexpr int64_t kSchedulersPerSM = 4;
  /// Dense peaks, FLOP/s: bf16 on the tensor cores, f32 without them.
  static constexpr double kBF16TensorFlops = 989e12;
  static constexpr double kF32Flops = 67e12;
  /// HBM3, bytes/s.
  static constexpr double kBandwidth = 3.35e12;
  /// What one kernel launch or GEMM call costs on top of its roofline
  /// time (launch latency and the tail of the previous kernel), seconds.
  static constexpr double kLaunchSeconds = 3e-6;
};

/// Resident blocks per SM and the fraction of the SM's 64 warp slots they
/// fill; `limiter` names the resource that bounds the blocks ("warps",
/// "blocks", "registers", "shared", or "none" when the block cannot run).
struct Occupancy {
  int64_t blocksPerSM = 0;
  double fraction = 0.0;
  std::string limiter;
};

/// Occupancy of blocks of `threads` threads using `registers` registers
/// per thread (0: unknown, no register limit) and `sharedBytes` of shared
/// memory (static + dynamic) per block. The model of the CUDA occupancy
/// calculator for sm_90:
///   warps/block  W = ceil(threads / 32)
///   by warps     floor(64 / W)
///   by blocks    32
///   by registers floor(floor(65536 / (ceil(32 r / 256) 256)) / W)
///   by shared    floor(228 KiB / (ceil(s / 128) 128 + 1 KiB reserved))
///   occupancy    min(...) W / 64
/// A block over 1024 threads, 255 registers or 227 KiB of shared memory
/// does not launch: 0 blocks.
Occupancy occupancyH100(int64_t threads, int64_t registers,
                        int64_t sharedBytes);

/// The fraction of its warps' lanes a block of `threadsPerBlock` threads
/// fills: threads / (32 ceil(threads / 32)) (1 for whole warps, 8/32 for
/// a block of 8).
double laneFraction(int64_t threadsPerBlock);

/// The fraction of the peaks a kernel can reach from its launch shape:
/// lanes (threads / (32 ceil(threads / 32)): a warp issues for 32 lanes
/// and moves 32-byte sectors whatever the active ones) times fill
/// (min(1, warps launched / (132 SMs x 4 schedulers)): fewer warps leave
/// schedulers idle). 1 for a full machine of full warps.
double launchEfficiency(int64_t threadsPerBlock, int64_t totalThreads);

/// Roofline seconds of one launch doing `flops` f32 FLOPs and moving
/// `bytes` of global memory at `efficiency` (launchEfficiency) of the
/// peaks: max(flops / 67 TFLOP/s + tensorFlops / 989 TFLOP/s, bytes /
/// 3.35 TB/s) / efficiency + 3 us.
double kernelSeconds(double flops, double bytes, double efficiency,
                     double tensorFlops = 0);

/// DRAM bytes of a launch's loads of one buffer: `readBytes` counted
/// load by load, `footprint` the buffer's bytes, `launchBytes` all the
/// global bytes the launch moves. A buffer of at most half of L2 whose
/// lines are read again within half of L2's bytes of other traffic (the
/// reads spread evenly over the launch: launchBytes x footprint /
/// readBytes) is read from DRAM once: its footprint (scalars, a row's
/// statistics, small tables); any other every time it is loaded.
double dramReadBytes(double readBytes, double footprint, double launchBytes);

/// Peak FLOP/s of a GEMM of elements of `elementBytes`: bf16 (2) on the
/// tensor cores 989 TFLOP/s, else 67 TFLOP/s.
double gemmPeakFlops(int64_t elementBytes);

/// The element sizes of a GEMM: A and B, then C and D (one size for all
/// four, or bf16 operands with an f32 result).
struct GemmElementBytes {
  int64_t operand, result;
  GemmElementBytes(int64_t both) : operand(both), result(both) {}
  GemmElementBytes(int64_t operand, int64_t result)
      : operand(operand), result(result) {}
};

/// Bytes one GEMM call moves: A (m x k), B (k x n), D (m x n) per batch,
/// and C (m x n) when it is read (beta != 0).
double gemmBytes(int64_t m, int64_t n, int64_t k, int64_t batch,
                 GemmElementBytes elementBytes, bool readsC);

/// Roofline seconds of one GEMM call: max(2 m n k batch / peak,
/// gemmBytes / 3.35 TB/s) + 3 us, the peak of the operands' type.
double gemmSeconds(int64_t m, int64_t n, int64_t k, int64_t batch,
                   GemmElementBytes elementBytes, bool readsC);

/// Model FLOP utilisation: modelFlops / (seconds x 989 TFLOP/s).
double mfu(double modelFlops, double seconds);

//===----------------------------------------------------------------------===//
// The calibrated model: what a kernel's instructions, memory spaces and
// occupancy cost (docs/design/cuda.md, "The cost model of --stats", gives each
// constant's source).
//===----------------------------------------------------------------------===//

/// Measured and documented H100 figures beside the datasheet's peaks.
struct H100Measured {
  /// Boost clock of the SM (FP32 peak 67 TFLOP/s = 132 x 128 x 2 x 1.98 GHz).
  static constexpr double kClockHz = 1.98e9;
  /// Each of the 4 schedulers issues one warp-instruction per clock.
  static constexpr double kWarpInstructionsPerSecond =
      H100::kSMs * H100::kSchedulersPerSM * kClockHz;
  /// Warps per SM that hide the ~4-cycle latency of dependent arithmetic
  /// (4 cycles x 4 schedulers, CUDA C++ Programming Guide).
  static constexpr double kLatencyHidingWarps = 16;
  /// Shared memory and L1: 32 banks x 4 bytes per clock per SM.
  static constexpr double kL1BytesPerSecond = H100::kSMs * 128.0 * kClockHz;
  static constexpr int64_t kL1BytesPerSM = 256 * 1024;
  /// L2: 50 MB; 3.8 TB/s measured reading all of it (H100 PCIe).
  static constexpr double kL2Bytes = 50e6;
  static constexpr double kL2BytesPerSecond = 3.8e12;
  /// What a graph-replayed launch of a small kernel takes end to end.
  static constexpr double kGraphLaunchSeconds = 1.3e-6;
  /// PCIe Gen5 x16, one direction (the datasheet's 128 GB/s is both).
  static constexpr double kPCIeBytesPerSecond = 64e9;
  /// mma.sync (the warp-level tensor-core instruction of sm_80, which
  /// gptc's attention kernels use) reaches about 2/3 of Hopper's dense
  /// peak; only wgmma reaches all of it (FlashAttention-3, Shah et al.
  /// 2024, section 2.2).
  static constexpr double kMmaSyncFlops = H100::kBF16TensorFlops * 2.0 / 3.0;
  /// cuBLAS bf16 GEMM at 80% of the dense peak on large shapes.
  static constexpr double kGemmEfficiency = 0.80;
  /// cuBLAS's output tile for the wave-quantisation count.
  static constexpr int64_t kGemmTileM = 256, kGemmTileN = 128;
};

/// The resource that bounds a kernel's time in the calibrated model.
enum class Bound { Arithmetic, Tensor, Issue, DRAM, L2, Shared, Local, Launch };
constexpr size_t kNumBounds = 8;
const char *boundName(Bound b);

/// What one launch of a kernel does and how it is launched.
struct KernelWork {
  double flops = 0, dramBytes = 0, threadInstructions = 0;
  double tensorFlops = 0;                 ///< mma.sync's (not in flops)
  double sharedBytes = 0, localBytes = 0; ///< loaded + stored
  int64_t threadsPerBlock = 1, threads = 1;
  /// Resident blocks per SM (occupancyH100); 0 when unknown (no ptxas).
  int64_t blocksPerSM = 0;
  /// ptxas's stack frame per thread (sm_90); -1 when unknown.
  int64_t stackBytes = -1;
  int64_t sharedPerBlock = 0;
  /// What issuing the launch costs beside its work: a replayed graph's
  /// node, or a stream launch when the runtime does not use graphs (ranks
  /// > 1: runtime/OpenStepDevice.cpp).
  double launchSeconds = H100Measured::kGraphLaunchSeconds;
  /// Measured (a profile of the emulated device, --stats --profile): the
  /// SASS warp-instructions the launch issues, which replace
  /// threadInstructions / (32 lanes); and the bytes of the 32-byte sectors
  /// its requests move between L1 and L2. 0 when not measured.
  double warpInstructions = 0, l2Bytes = 0;
};

/// Seconds of one launch and what bounds it, each term given too.
struct KernelTime {
  double seconds = 0;
  Bound bound = Bound::Launch;
  double arithmetic = 0, tensor = 0, issue = 0, dram = 0, l2 = 0, shared = 0,
         local = 0;
};

/// Where local memory is served from: L1 when the resident threads'
/// stack frames fit beside the resident blocks' shared memory in the SM's
/// 256 KiB, else L2 when all SMs' frames fit in its 50 MB, else DRAM.
/// Returns its bytes/s.
double localBytesPerSecond(const KernelWork &w, int64_t residentWarpsPerSM);

/// The calibrated time of one launch:
///   active  = min(resident warps per SM, warps launched / 132)
///   hiding  = min(1, active / 16)          (latency of dependent issue)
///   fill    = min(1, warps launched / 528) (schedulers with a warp)
///   lanes   = threads / (32 ceil(threads / 32)) per block
///   issue   = thread-instructions / (32 lanes) / (528 x 1.98 GHz) /
///             hiding (measured: SASS warp-instructions / (528 x 1.98
///             GHz) / hiding)
///   arith   = FLOPs / 67 TFLOP/s / lanes / hiding
///   tensor  = mma.sync FLOPs / (2/3 x 989 TFLOP/s) / fill
///   dram    = bytes / 3.35 TB/s / fill
///   l2      = measured sector bytes / 3.8 TB/s / fill (0 unmeasured)
///   shared  = shared bytes / 33.4 TB/s / fill
///   local   = local bytes / localBytesPerSecond / fill (0 when ptxas
///             reports no stack frame: the private arrays live in
///             registers)
///   seconds = max(terms) + 1.3 us (a graph node; 3 us a stream launch
///             when the runtime does not replay graphs: launchSeconds)
/// A term that is 0 is not a bound; with all terms under the launch time
/// the bound is Launch.
KernelTime calibratedKernelTime(const KernelWork &w);

/// Seconds of one GEMM call: max(FLOPs / (0.8 x peak x waves), bytes /
/// 3.35 TB/s) + 1.3 us, where waves = tiles / (132 ceil(tiles / 132)) for
/// tiles = ceil(m / 256) ceil(n / 128) batch (wave quantisation: the last
/// wave of tiles leaves SMs idle).
/// `launchSeconds`: as KernelWork's.
double
calibratedGemmSeconds(int64_t m, int64_t n, int64_t k, int64_t batch,
                      GemmElementBytes elementBytes, bool readsC,
                      double launchSeconds = H100Measured::kGraphLaunchSeconds);

/// One all-reduce start of a backward: its bytes, and the seconds of the
/// backward's work after it.
struct ReduceStart {
  double bytes = 0, workAfter = 0;
};

/// The seconds a step waits at the end of its backward (`total` seconds of
/// work) for the all-reduces of `starts` (in program order), run as the
/// runtime runs them (runtime/comm/Collectives.cpp, NcclBackend): packed
/// into buckets of at least `bucketBytes`, a bucket issued at the start
/// that fills it and the rest at the first wait (the backward's end), on
/// a communication stream beside the backward, one bucket after another,
/// a bucket of b bytes taking reduceSeconds(b). The sharing of SMs and
/// memory between NCCL's kernels and the backward's is not priced.
double exposedReduceSeconds(const std::vector<ReduceStart> &starts,
                            double total, double bucketBytes,
                            const std::function<double(double)> &reduceSeconds);

} // namespace gptc::cost

#endif // GPTC_DRIVER_REPORT_COSTMODEL_H
