//===- PhaseTimes.cpp - Wall time and peak memory of compile phases -------===//

#include "driver/PhaseTimes.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sys/resource.h>

namespace gptc {

namespace {

/// Linux: writing 5 to /proc/self/clear_refs resets the peak resident set
/// (VmHWM), so that each phase reports its own peak.
void resetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

/// VmHWM from /proc/self/status; getrusage's maximum where there is none.
double peakMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0;
  struct rusage usage = {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

} // namespace

PhaseTimes::PhaseTimes() : start(std::chrono::steady_clock::now()) {
  last = start;
  resetPeak();
}

void PhaseTimes::end(const std::string &name) {
  auto now = std::chrono::steady_clock::now();
  phases.push_back(
      {name, std::chrono::duration<double>(now - last).count(), peakMiB()});
  double total = std::chrono::duration<double>(now - start).count();
  if (progress && total >= quietSeconds) {
    *progress << progressPrefix << name
              << llvm::format(": %.1f s (%.1f s so far)\n",
                              phases.back().seconds, total);
    progress->flush();
  }
  resetPeak();
  last = std::chrono::steady_clock::now();
}

void PhaseTimes::sayAsItGoes(llvm::raw_ostream &os, const std::string &prefix,
                             double afterSeconds) {
  progress = &os;
  progressPrefix = prefix;
  quietSeconds = afterSeconds;
  if (const char *v = std::getenv("GPTC_PROGRESS_AFTER"); v && *v)
    quietSeconds = std::atof(v);
}

void PhaseTimes::print(llvm::raw_ostream &os) const {
  size_t width = 5;
  for (const Phase &p : phases)
    width = std::max(width, p.name.size());
  os << llvm::left_justify("phase", width) << "   wall s   peak RSS MiB\n";
  double peak = 0;
  for (const Phase &p : phases) {
    os << llvm::left_justify(p.name, width)
       << llvm::format("  %7.2f   %12.0f\n", p.seconds, p.peakMiB);
    peak = std::max(peak, p.peakMiB);
  }
  double total = std::chrono::duration<double>(last - start).count();
  os << llvm::left_justify("total", width)
     << llvm::format("  %7.2f   %12.0f\n", total, peak);
}

} // namespace gptc
