//===- StepStatsPrint.cpp - The tables and summary of --stats -------------===//
//
// See StepStats.h.
//
//===----------------------------------------------------------------------===//

#include "driver/report/StepStats.h"

#include "driver/report/RankShares.h"
#include "driver/report/ReportTable.h"
#include "frontend/Parameters.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using llvm::SmallVector;
using llvm::StringRef;

namespace gptc::report {

size_t distinctKernels(llvm::ArrayRef<const EntryStats *> entries) {
  llvm::StringSet<> names;
  for (const EntryStats *e : entries)
    for (const Kernel &k : e->kernels)
      names.insert(k.name);
  return names.size();
}

/// " local 1.2 ms (3 launch sites), issue ..." for the bounds that have
/// kernels, longest first.
static void printBounds(const std::array<double, cost::kNumBounds> &seconds,
                        const std::array<int64_t, cost::kNumBounds> &kernels,
                        llvm::raw_ostream &os) {
  std::vector<size_t> order;
  for (size_t b = 0; b < seconds.size(); ++b)
    if (kernels[b])
      order.push_back(b);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return seconds[a] > seconds[b]; });
  for (size_t i = 0; i < order.size(); ++i)
    os << (i ? ", " : " ")
       << cost::boundName(static_cast<cost::Bound>(order[i])) << " "
       << millis(seconds[order[i]]) << " ms (" << kernels[order[i]]
       << " launch site" << (kernels[order[i]] == 1 ? "" : "s") << ")";
}

void printEntry(const EntryStats &entry, Target target, bool withPTXAS,
                llvm::raw_ostream &os) {
  os << "\n" << entry.name << ": ";
  if (target == Target::CUDA)
    os << entry.kernels.size() << " launch sites, " << entry.launches.str()
       << " launches of " << distinctKernels({&entry}) << " distinct kernels, ";
  else
    os << entry.kernels.size() << " kernels, " << entry.launches.str()
       << " launches, ";
  os << entry.gemmCalls.str() << " GEMM calls, " << entry.gemmFlops.str()
     << " GEMM FLOPs";
  if (entry.hostLoops)
    os << ", " << entry.hostLoops << " serial loop nest"
       << (entry.hostLoops == 1 ? "" : "s") << " outside kernels";
  os << "\n";
  if (target == Target::CUDA) {
    const char *approx = entry.approximate ? "~" : "";
    os << "  H100 estimate: " << approx
       << millis(entry.calibratedKernelSeconds + entry.calibratedGemmSeconds)
       << " ms (calibrated: kernels " << millis(entry.calibratedKernelSeconds)
       << " ms, GEMMs " << millis(entry.calibratedGemmSeconds)
       << " ms); kernel time by bound:";
    printBounds(entry.secondsByBound, entry.kernelsByBound, os);
    os << "\n  H100 roofline: kernels " << amount(entry.kernelFlops)
       << " FLOPs " << amount(entry.kernelBytes) << " bytes "
       << millis(entry.kernelSeconds) << " ms, GEMMs " << entry.gemmFlops.str()
       << " FLOPs " << amount(entry.gemmBytes) << " bytes "
       << millis(entry.gemmSeconds) << " ms, total " << approx
       << millis(entry.kernelSeconds + entry.gemmSeconds) << " ms\n";
  }
  if (!entry.kernels.empty()) {
    if (target == Target::CPU) {
      Table t({{"kernel", false},
               {"origin", false},
               {"loops", false},
               {"iterations", true},
               {"launches", true}});
      for (const Kernel &k : entry.kernels)
        t.addRow({k.name, k.origin, dims(k.loops), str(product(k.loops)),
                  str(k.launches)});
      t.print(os, "  ");
    } else {
      std::vector<std::pair<std::string, bool>> header = {
          {"kernel", false}, {"origin", false}, {"grid", false},
          {"block", false},  {"threads", true}, {"launches", true}};
      if (withPTXAS)
        for (const char *chip : kPTXChips) {
          header.push_back({std::string(chip) + " regs", true});
          header.push_back({"spill", true});
        }
      for (const char *title :
           {"smem", "occ", "FLOPs", "bytes", "instr", "shared B", "local B",
            "roof us", "est us", "bound"})
        header.push_back({title, true});
      // --profile: what the emulated device measured (ld/st sectors a
      // request, shared wavefronts a request, SASS a PTX instruction, the
      // share of executed instructions that are division sequences), and
      // whether the profiled kernel's code is this one's ("=") or 90% of it.
      if (entry.profiled)
        for (const char *title : {"ld sec/rq", "st sec/rq", "wf/rq", "SASS/PTX",
                                  "div %", "profile"})
          header.push_back({title, true});
      Table t(header);
      for (const Kernel &k : entry.kernels) {
        std::vector<std::string> row = {
            k.name,
            k.origin,
            dims(k.grid),
            dims(k.block),
            str(multiply(product(k.grid), product(k.block))),
            str(k.launches)};
        if (withPTXAS)
          for (const PTXASInfo &p : k.ptxas) {
            bool ok = p.error.empty();
            row.push_back(ok ? std::to_string(p.registers) : "fail");
            row.push_back(ok ? std::to_string(p.spillBytes) : "-");
          }
        // Static shared memory from ptxas (sm_90) or the workgroup
        // attributions, plus the launch's dynamic shared memory.
        int64_t shared =
            k.dynamicShared + (withPTXAS && k.ptxas[1].error.empty()
                                   ? k.ptxas[1].sharedBytes
                                   : k.workgroupShared);
        row.push_back(std::to_string(shared));
        row.push_back(
            k.occupancy
                ? llvm::formatv("{0:f0}%", k.occupancy->fraction * 100).str()
                : "-");
        row.push_back(amount(k.flops, k.approximate()));
        row.push_back(amount(k.bytes, k.approximate()));
        row.push_back(amount(k.instructions, k.approximate()));
        row.push_back(amount(k.sharedTraffic, k.approximate()));
        row.push_back(amount(k.localTraffic, k.approximate()));
        row.push_back(micros(k.seconds));
        row.push_back(micros(k.calibratedSeconds));
        row.push_back(cost::boundName(k.calibrated.bound));
        if (entry.profiled) {
          const MeasuredKernel *m = k.measured;
          auto cell = [&](double v) {
            return m ? llvm::formatv("{0:f1}", v).str() : "-";
          };
          row.push_back(cell(m ? m->loadSectorsPerRequest : 0));
          row.push_back(cell(m ? m->storeSectorsPerRequest : 0));
          row.push_back(cell(m ? m->wavefrontsPerRequest : 0));
          row.push_back(m ? llvm::formatv("{0:f2}", m->sassPerPtx).str() : "-");
          row.push_back(cell(m ? 100 * m->divisionShare : 0));
          row.push_back(!m ? "none" : k.measuredExactly ? "=" : "~");
        }
        t.addRow(std::move(row));
      }
      t.print(os, "  ");
    }
  }
  if (!entry.gemms.empty()) {
    std::vector<std::pair<std::string, bool>> header = {
        {"GEMM", false}, {"dtype", false}, {"trans", false},
        {"m", true},     {"n", true},      {"k", true},
        {"batch", true}, {"calls", true},  {"FLOPs", true}};
    if (target == Target::CUDA) {
      header.push_back({"bytes", true});
      header.push_back({"roof us", true});
      header.push_back({"est us", true});
    }
    Table t(header);
    size_t i = 0;
    for (const GemmGroup &g : entry.gemms) {
      const GemmShape &s = g.shape;
      std::string trans =
          std::string(s.transA ? "T" : "N") + (s.transB ? "T" : "N");
      std::vector<std::string> row = {"g" + std::to_string(i++),
                                      s.dtype,
                                      trans,
                                      str(s.m),
                                      str(s.n),
                                      str(s.k),
                                      str(s.batch),
                                      str(g.calls),
                                      str(g.flops())};
      if (target == Target::CUDA) {
        row.push_back(amount(g.bytes()));
        row.push_back(micros(g.seconds()));
        row.push_back(micros(g.calibratedSeconds(entry.launchSeconds)));
      }
      t.addRow(std::move(row));
    }
    t.print(os, "  ");
  }
}

namespace {

/// Model FLOPs of one training step of one rank: 6 N T, N the parameters
/// but the embedding tables (wte, value_embeds.*; the head counts), T the
/// tokens of the step on one rank (seq_len x device_batch x grad_accum).
/// Attention's own FLOPs are not counted.
void modelFlops(const ModelSpec &spec, int64_t &params, int64_t &tokens) {
  params = 0;
  for (const ParameterInfo &p : enumerateParameters(spec)) {
    if (p.name == "wte" || StringRef(p.name).starts_with("value_embeds."))
      continue;
    int64_t n = 1;
    for (int64_t d : p.shape)
      n *= d;
    params += n;
  }
  tokens = spec.training.seqLen * spec.training.deviceBatch *
           spec.training.gradAccum();
}

} // namespace

void printStepCost(const ModelSpec &spec,
                   const std::vector<EntryStats> &entries,
                   llvm::raw_ostream &os) {
  double kernelSeconds = 0, gemmSeconds = 0, idealSeconds = 0, flops = 0,
         bytes = 0, calKernels = 0, calGemms = 0;
  std::array<double, cost::kNumBounds> byBound{};
  std::array<int64_t, cost::kNumBounds> sitesByBound{};
  Total launches, calls;
  bool approximate = false;
  // (calibrated seconds per step, kernel, origin, bound)
  std::vector<std::tuple<double, std::string, std::string, cost::Bound>> top;
  // By origin, the layer index dropped (blocks.3.mlp -> blocks.*.mlp).
  std::map<std::string, double> byOrigin;
  double serial = 0;
  int64_t serialKernels = 0;
  for (const EntryStats &e : entries) {
    int64_t times = timesPerStep(spec, e);
    if (!times)
      continue;
    kernelSeconds += times * e.kernelSeconds;
    gemmSeconds += times * e.gemmSeconds;
    idealSeconds += times * (e.idealSeconds + e.gemmSeconds);
    calKernels += times * e.calibratedKernelSeconds;
    calGemms += times * e.calibratedGemmSeconds;
    for (size_t b = 0; b < byBound.size(); ++b) {
      byBound[b] += times * e.secondsByBound[b];
      sitesByBound[b] += e.kernelsByBound[b];
    }
    flops += times * (e.kernelFlops + static_cast<double>(e.gemmFlops.known));
    bytes += times * (e.kernelBytes + e.gemmBytes);
    launches.add(e.launches, times);
    calls.add(e.gemmCalls, times);
    approximate |= e.approximate;
    for (const Kernel &k : e.kernels) {
      double seconds = times * k.calibratedSeconds;
      top.push_back({seconds, k.name, k.origin, k.calibrated.bound});
      SmallVector<StringRef> parts;
      StringRef(k.origin).split(parts, '.');
      if (parts.size() > 1 && parts[0] == "blocks")
        parts[1] = "*";
      byOrigin[llvm::join(parts, ".")] += seconds;
      if (multiply(product(k.grid), product(k.block)) == Count(1)) {
        serial += seconds;
        ++serialKernels;
      }
    }
  }
  int64_t params = 0, tokens = 0;
  modelFlops(spec, params, tokens);
  double model =
      6.0 * static_cast<double>(params) * static_cast<double>(tokens);
  std::string collectivesLine;
  llvm::raw_string_ostream collectivesOs(collectivesLine);
  double collectives = 0;
  double perStep =
      stepOverheadSeconds(spec, entries, collectives, collectivesOs) -
      collectives;
  double seconds = calKernels + calGemms + collectives + perStep;
  double roofline = kernelSeconds + gemmSeconds;
  const char *approx = approximate ? "~" : "";
  os << "estimated H100 step: " << approx << millis(seconds)
     << " ms (calibrated: kernels " << millis(calKernels) << " ms in "
     << launches.str() << " launches, GEMMs " << millis(calGemms) << " ms in "
     << calls.str() << " calls, collectives " << millis(collectives)
     << " ms, graph launch, batch copy and sync " << millis(perStep) << " ms), "
     << human(static_cast<int64_t>(flops)) << "FLOP, "
     << human(static_cast<int64_t>(bytes)) << "B, "
     << llvm::formatv("{0:f2}", 100 * cost::mfu(model, seconds)) << "% MFU\n";
  os << "  kernel time by bound:";
  printBounds(byBound, sitesByBound, os);
  os << "\n";
  os << "  roofline model (FLOPs and bytes at the peaks, GEMMs at 100%, 3 us a "
        "launch): "
     << approx << millis(roofline) << " ms (kernels " << millis(kernelSeconds)
     << " ms, GEMMs " << millis(gemmSeconds) << " ms), "
     << llvm::formatv("{0:f2}", 100 * cost::mfu(model, roofline))
     << "% MFU; the calibrated estimate is "
     << llvm::formatv("{0:f2}", roofline > 0 ? seconds / roofline : 0.0)
     << "x it\n";
  os << "  model FLOPs 6 N T = 6 x " << params
     << " (parameters but wte and value_embeds) x " << tokens
     << " tokens = " << human(static_cast<int64_t>(model))
     << "FLOP; roofline with every kernel at full lanes and fill "
     << millis(idealSeconds) << " ms, "
     << llvm::formatv("{0:f2}", 100 * cost::mfu(model, idealSeconds))
     << "% MFU\n";
  os << collectivesLine;
  std::stable_sort(top.begin(), top.end(), [](const auto &a, const auto &b) {
    return std::get<0>(a) > std::get<0>(b);
  });
  std::vector<std::pair<double, std::string>> origins;
  for (auto &[origin, secs] : byOrigin)
    origins.push_back({secs, origin});
  std::stable_sort(
      origins.begin(), origins.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  os << "  kernel time by origin:";
  for (size_t i = 0; i < std::min<size_t>(6, origins.size()); ++i)
    os << (i ? ", " : " ") << origins[i].second << " "
       << millis(origins[i].first) << " ms";
  os << "; single-thread kernels " << serialKernels << ", " << millis(serial)
     << " ms\n";
  os << "  top kernels by estimated time per step:\n";
  for (size_t i = 0; i < std::min<size_t>(5, top.size()); ++i)
    os << "    " << millis(std::get<0>(top[i])) << " ms  "
       << std::get<1>(top[i]) << " (" << std::get<2>(top[i]) << ", "
       << cost::boundName(std::get<3>(top[i])) << ")\n";
}

} // namespace gptc::report
