//===- StepAnswer.cpp - The first five lines of the cost report -----------===//
//
// What a user of `gptc compile --target=cuda --stats` asks first: how long
// a step takes on one H100, what it is made of, which kernels to fix, how
// long the whole run takes, and whether a rank's memory fits the GPU. The
// tables follow.
//
//===----------------------------------------------------------------------===//

#include "driver/MemoryEstimate.h"
#include "driver/report/CostModel.h"
#include "driver/report/RankShares.h"
#include "driver/report/ReportTable.h"
#include "driver/report/StepStats.h"
#include "runtime/HostMemory.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <tuple>

namespace gptc::report {

namespace {

std::string duration(double seconds) {
  int64_t s = static_cast<int64_t>(seconds + 0.5);
  if (s < 120)
    return llvm::formatv("{0:f1} s", seconds).str();
  return llvm::formatv("{0}:{1:d2}:{2:d2}", s / 3600, s / 60 % 60, s % 60)
      .str();
}

} // namespace

double stepOverheadSeconds(const ModelSpec &spec,
                           const std::vector<EntryStats> &entries,
                           double &collectives,
                           llvm::raw_ostream &collectivesOs) {
  const EntryStats *grad = nullptr;
  for (const EntryStats &e : entries)
    if (e.name == "gptc_grad_step")
      grad = &e;
  collectives = printDataParallelCost(spec, collectivesOs, grad);
  // One cuGraphLaunch and one synchronisation a step (the runtime's
  // replayed graph), and the micro-batches' tokens and targets (i32) copied
  // to the device before it over PCIe, not overlapped.
  double tokens =
      static_cast<double>(spec.training.seqLen * spec.training.deviceBatch *
                          spec.training.gradAccum());
  return collectives + cost::H100Measured::kGraphLaunchSeconds +
         8.0 * tokens / cost::H100Measured::kPCIeBytesPerSecond;
}

void printStepAnswer(const ModelSpec &spec,
                     const std::vector<EntryStats> &entries,
                     const MeasuredProfile *profile, int64_t arenaBytes,
                     llvm::raw_ostream &os) {
  double kernels = 0, staticKernels = 0, gemms = 0;
  Total launches, calls;
  int64_t unmeasured = 0, approximately = 0;
  std::array<double, cost::kNumBounds> byBound{};
  std::vector<std::tuple<double, const Kernel *>> worst;
  for (const EntryStats &e : entries) {
    int64_t times = timesPerStep(spec, e);
    if (!times)
      continue;
    kernels += times * e.calibratedKernelSeconds;
    staticKernels += times * e.staticKernelSeconds;
    gemms += times * e.calibratedGemmSeconds;
    launches.add(e.launches, times);
    calls.add(e.gemmCalls, times);
    unmeasured += e.unmeasuredKernels;
    approximately += e.approximatelyMeasured;
    for (size_t b = 0; b < byBound.size(); ++b)
      byBound[b] += times * e.secondsByBound[b];
    for (const Kernel &k : e.kernels)
      worst.push_back({times * k.calibratedSeconds, &k});
  }
  std::string ignored;
  llvm::raw_string_ostream ignoredOs(ignored);
  double collectives = 0;
  double overhead = stepOverheadSeconds(spec, entries, collectives, ignoredOs);
  double step = kernels + gemms + overhead;
  double staticStep = staticKernels + gemms + overhead;

  // 1: the step.
  os << "H100 step: " << millis(step) << " ms";
  if (profile)
    os << " (kernels priced by what the emulated device measured of them in "
       << profile->path
       << (profile->shape.empty() ? "" : " (" + profile->shape + ")")
       << ": sectors, wavefronts, active lanes, SASS per PTX instruction"
       << (approximately ? "; " + std::to_string(approximately) +
                               " launch sites by a kernel of their name "
                               "whose code is 80% theirs"
                         : "")
       << (unmeasured ? "; " + std::to_string(unmeasured) +
                            " launch sites not in it at the static model"
                      : "")
       << "); the static model of earlier releases says " << millis(staticStep)
       << " ms\n";
  else
    os << " (the static model: element bytes and estimated PTX; --profile "
          "FILE prices the kernels by a measured step, "
          "scripts/measure-step.sh makes one)\n";
  // 2: the parts.
  os << "  parts: kernels " << millis(kernels) << " ms in " << launches.str()
     << " launches (by bound:";
  std::vector<size_t> order;
  for (size_t b = 0; b < byBound.size(); ++b)
    if (byBound[b] > 0)
      order.push_back(b);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return byBound[a] > byBound[b]; });
  for (size_t i = 0; i < order.size(); ++i)
    os << (i ? ", " : " ")
       << cost::boundName(static_cast<cost::Bound>(order[i])) << " "
       << millis(byBound[order[i]]) << " ms";
  os << "), GEMMs " << millis(gemms) << " ms in " << calls.str()
     << " calls, collectives " << millis(collectives)
     << " ms, graph launch and batch copy " << millis(overhead - collectives)
     << " ms\n";
  // 3: the five worst kernels, each name's launch sites together.
  std::vector<std::tuple<double, const Kernel *, int>> byName;
  for (auto &[seconds, k] : worst) {
    auto it = std::find_if(byName.begin(), byName.end(), [&](auto &w) {
      return std::get<1>(w)->name == k->name;
    });
    if (it == byName.end())
      byName.push_back({seconds, k, 1});
    else
      std::get<0>(*it) += seconds, ++std::get<2>(*it);
  }
  std::stable_sort(byName.begin(), byName.end(), [](auto &a, auto &b) {
    return std::get<0>(a) > std::get<0>(b);
  });
  os << "  worst kernels:";
  for (size_t i = 0; i < std::min<size_t>(5, byName.size()); ++i) {
    auto [seconds, k, sites] = byName[i];
    os << (i ? "; " : " ") << k->name << " " << millis(seconds) << " ms ("
       << cost::boundName(k->calibrated.bound);
    if (sites > 1)
      os << ", " << sites << " sites";
    if (const MeasuredKernel *m = k->measured) {
      os << llvm::formatv(", {0:f1}/{1:f1} sectors a load/store request",
                          m->loadSectorsPerRequest, m->storeSectorsPerRequest);
      if (m->wavefrontsPerRequest > 0)
        os << llvm::formatv(", {0:f1} wavefronts a shared request",
                            m->wavefrontsPerRequest);
      os << llvm::formatv(", {0:f2} SASS a PTX", m->sassPerPtx);
      if (m->divisionShare >= 0.005)
        os << llvm::formatv(", {0:f1}% divisions", 100 * m->divisionShare);
    }
    os << ")";
  }
  os << "\n";
  // 4: the whole run.
  double run = step * static_cast<double>(spec.training.steps);
  os << "  whole run: " << spec.training.steps << " steps x " << millis(step)
     << " ms = " << duration(run) << " of training on " << spec.training.ranks
     << " H100" << (spec.training.ranks == 1 ? "" : "s")
     << " (validation and checkpoints not counted)\n";
  // 5: memory.
  os << "  memory per rank: ";
  if (arenaBytes <= 0)
    os << "unknown (no arena planned)\n";
  else
    os << h100Fit(arenaBytes) << "\n";
}

} // namespace gptc::report
