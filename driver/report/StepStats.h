//===- StepStats.h - What --stats counts of a step --------------*- C++ -*-===//
//
// What `gptc compile --stats` (Stats.cpp) collects per entry point --
// kernels with their launch shapes, ptxas columns and costs, GEMM groups,
// totals -- and the printing of it (StepStatsPrint.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_STEPSTATS_H
#define GPTC_DRIVER_REPORT_STEPSTATS_H

#include "driver/Ptxas.h"
#include "driver/report/CostModel.h"
#include "driver/report/KernelCost.h"
#include "driver/report/MeasuredProfile.h"
#include "frontend/ModelSpec.h"
#include "passes/Pipeline.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace gptc::report {

/// The chips of the PTX stage, in its order.
constexpr size_t kNumChips = kPTXChips.size();

/// A count that may be unknown (a dynamic loop bound).
using Count = std::optional<int64_t>;

inline Count multiply(Count a, Count b) {
  if (!a || !b)
    return std::nullopt;
  return *a * *b;
}

inline std::string str(Count c) { return c ? std::to_string(*c) : "?"; }

inline std::string dims(llvm::ArrayRef<Count> counts) {
  std::string s;
  for (Count c : counts)
    s += (s.empty() ? "" : "x") + str(c);
  return s;
}

inline Count product(llvm::ArrayRef<Count> counts) {
  Count n = 1;
  for (Count c : counts)
    n = multiply(n, c);
  return n;
}

struct Kernel {
  std::string name, origin;
  std::vector<Count> loops;         ///< CPU: trip count of each dimension
  std::array<Count, 3> grid, block; ///< CUDA
  Count launches = 1;               ///< per call of the entry point
  std::array<PTXASInfo, kNumChips> ptxas;
  Mnemonics mnemonics; ///< of its sm_90 PTX (with ptxas)
  // CUDA cost.
  int64_t dynamicShared = 0, workgroupShared = 0; ///< bytes per block
  BodyCost body;                                  ///< per work item
  Count workItems;                          ///< threads that pass the guard
  bool guardUnknown = false;                ///< a guard we could not bound
  std::optional<cost::Occupancy> occupancy; ///< sm_90, with ptxas
  double flops = 0, bytes = 0;              ///< per launch
  double tensorFlops = 0;                   ///< per launch (mma.sync)
  /// Per launch: thread-instructions, shared and local bytes.
  double instructions = 0, sharedTraffic = 0, localTraffic = 0;
  double seconds = 0, idealSeconds = 0; ///< all launches of one call
  cost::KernelTime calibrated;          ///< one launch
  double calibratedSeconds = 0;         ///< all launches of one call
  /// With a profile (--profile): this kernel's measured ratios (null when
  /// the profiled step did not launch it), and the static model's time
  /// kept beside the measured one for one release.
  const MeasuredKernel *measured = nullptr;
  bool measuredExactly = false; ///< the profiled kernel's code is the same
  double staticCalibratedSeconds = 0; ///< all launches of one call
  bool approximate() const { return body.approximate || guardUnknown; }
};

/// One GEMM shape: C[b] = op(A[b]) op(B[b]) (+ C[b]), op(A) m x k.
struct GemmShape {
  std::string dtype; ///< f32, f64, bf16, bf16_f32 (callee gptc_gemm_DTYPE)
  bool transA = false, transB = false;
  Count m, n, k, batch;
  bool readsC = true; ///< beta is not a constant 0

  auto tie() const {
    return std::tie(dtype, transA, transB, m, n, k, batch, readsC);
  }
  bool operator<(const GemmShape &o) const { return tie() < o.tie(); }
  Count flops() const {
    return multiply(multiply(multiply(multiply(2, m), n), k), batch);
  }
};

struct GemmGroup {
  GemmShape shape;
  Count calls = 0; ///< per call of the entry point
  Count flops() const { return multiply(calls, shape.flops()); }
  cost::GemmElementBytes elementBytes() const {
    if (shape.dtype == "bf16_f32")
      return {2, 4};
    return shape.dtype == "bf16" ? 2 : shape.dtype == "f64" ? 8 : 4;
  }
  /// Bytes and roofline seconds of all calls; 0 when a size is unknown.
  double bytes() const {
    if (!calls || !shape.m || !shape.n || !shape.k || !shape.batch)
      return 0;
    return *calls * cost::gemmBytes(*shape.m, *shape.n, *shape.k, *shape.batch,
                                    elementBytes(), shape.readsC);
  }
  double seconds() const {
    if (!calls || !shape.m || !shape.n || !shape.k || !shape.batch)
      return 0;
    return *calls * cost::gemmSeconds(*shape.m, *shape.n, *shape.k,
                                      *shape.batch, elementBytes(),
                                      shape.readsC);
  }
  double calibratedSeconds(double launchSeconds) const {
    if (!calls || !shape.m || !shape.n || !shape.k || !shape.batch)
      return 0;
    return *calls * cost::calibratedGemmSeconds(*shape.m, *shape.n, *shape.k,
                                                *shape.batch, elementBytes(),
                                                shape.readsC, launchSeconds);
  }
};

/// Sums counts; unknown terms make the sum a lower bound (printed "N+").
struct Total {
  int64_t known = 0;
  bool partial = false;
  void add(Count c) {
    if (c)
      known += *c;
    else
      partial = true;
  }
  void add(const Total &t, int64_t times) {
    known += t.known * times;
    partial |= t.partial;
  }
  std::string str() const {
    return std::to_string(known) + (partial ? "+" : "");
  }
};

struct EntryStats {
  std::string name;
  std::vector<Kernel> kernels;
  std::vector<GemmGroup> gemms;
  int64_t hostLoops = 0; ///< serial loop nests outside any kernel
  /// What a launch or GEMM call costs to issue (KernelWork::launchSeconds).
  double launchSeconds = cost::H100Measured::kGraphLaunchSeconds;
  Total launches, gemmCalls, gemmFlops;
  /// The cost of one call (CUDA): FLOPs, bytes and seconds of its kernels
  /// and GEMMs; `ideal` as if every kernel ran at efficiency 1.
  double kernelFlops = 0, kernelBytes = 0, kernelSeconds = 0, idealSeconds = 0;
  double gemmBytes = 0, gemmSeconds = 0;
  /// The calibrated model's seconds of one call, and its kernels' seconds
  /// by the bound that limits them (indexed by cost::Bound).
  double calibratedKernelSeconds = 0, calibratedGemmSeconds = 0;
  /// The static model's kernel seconds (equal to calibratedKernelSeconds
  /// without a profile), and the kernels a profile did not measure.
  double staticKernelSeconds = 0;
  int64_t unmeasuredKernels = 0, approximatelyMeasured = 0;
  bool profiled = false; ///< --profile was given
  std::array<double, cost::kNumBounds> secondsByBound{};
  std::array<int64_t, cost::kNumBounds> kernelsByBound{};
  bool approximate = false;
  /// CUDA, in program order: each gradient all-reduce start's bytes, with
  /// the kernel launch sites (a prefix of `kernels`) and GEMM calls (a
  /// prefix of `gemmOrder`) before it.
  struct AllReduceSite {
    double bytes = 0;
    size_t kernelSites = 0, gemmCalls = 0;
  };
  std::vector<AllReduceSite> allReduceSites;
  std::vector<GemmShape> gemmOrder;
  /// The sites as cost::ReduceStart: the calibrated seconds of one call's
  /// work after each.
  std::vector<cost::ReduceStart> reduceStarts() const;
};

/// How many times an entry point runs in a training step: gptc_grad_step
/// grad_accum times, gptc_update_step once, the others not.
inline int64_t timesPerStep(const ModelSpec &spec, const EntryStats &e) {
  return e.name == "gptc_grad_step"     ? spec.training.gradAccum()
         : e.name == "gptc_update_step" ? 1
                                        : 0;
}

/// Kernels of distinct names (one per PTX entry point) over `entries`.
size_t distinctKernels(llvm::ArrayRef<const EntryStats *> entries);

/// One entry point's line and its kernel and GEMM tables.
void printEntry(const EntryStats &entry, Target target, bool withPTXAS,
                llvm::raw_ostream &os);

/// The cost summary of one training step (gptc_grad_step x grad_accum +
/// gptc_update_step) on one H100 and the kernels that take most of it.
void printStepCost(const ModelSpec &spec,
                   const std::vector<EntryStats> &entries,
                   llvm::raw_ostream &os);

/// The answer, as the first five lines of the report (StepAnswer.cpp):
/// the step time, the parts it is made of, the five worst kernels with
/// what bounds them, the whole run (training.steps steps), and the memory
/// one rank needs against an 80 GB H100 (`arenaBytes`, 0 when unknown).
void printStepAnswer(const ModelSpec &spec,
                     const std::vector<EntryStats> &entries,
                     const MeasuredProfile *profile, int64_t arenaBytes,
                     llvm::raw_ostream &os);

/// Seconds of one training step beside the kernels and GEMMs: collectives
/// (printDataParallelCost's over the costed `entries`, whose line goes to
/// `collectivesOs`), one graph launch and the batch's copy.
double stepOverheadSeconds(const ModelSpec &spec,
                           const std::vector<EntryStats> &entries,
                           double &collectives,
                           llvm::raw_ostream &collectivesOs);

} // namespace gptc::report

#endif // GPTC_DRIVER_REPORT_STEPSTATS_H
