//===- PhaseTimes.h - Wall time and peak memory of compile phases -*- C++ -*-=//
//
// gptc compile --time: each phase of a compile (the spec, the MLIR
// pipeline, translation, optimisation and code generation, the link) with
// its wall time and the peak resident memory reached during it.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_PHASETIMES_H
#define GPTC_DRIVER_PHASETIMES_H

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>
#include <vector>

namespace gptc {

class PhaseTimes {
public:
  /// Starts the first phase.
  PhaseTimes();
  /// Ends the current phase, named `name`, and starts the next.
  void end(const std::string &name);
  /// One line per phase and a total: wall seconds, peak RSS in MiB.
  void print(llvm::raw_ostream &os) const;
  /// Also says each phase as it ends, `prefix` first, on `os`, once the
  /// phases have taken `afterSeconds` (GPTC_PROGRESS_AFTER=S overrides
  /// it): a long compile says where it is, a short one stays quiet.
  void sayAsItGoes(llvm::raw_ostream &os, const std::string &prefix,
                   double afterSeconds);

private:
  struct Phase {
    std::string name;
    double seconds;
    double peakMiB;
  };
  std::vector<Phase> phases;
  std::chrono::steady_clock::time_point start, last;
  llvm::raw_ostream *progress = nullptr;
  std::string progressPrefix;
  double quietSeconds = 0;
};

} // namespace gptc

#endif // GPTC_DRIVER_PHASETIMES_H
