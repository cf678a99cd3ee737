//===- Executor.h - Running a kernel grid on host threads -------*- C++ -*-===//

#ifndef GPTC_EMU_EXECUTOR_H
#define GPTC_EMU_EXECUTOR_H

#include "emu/ExecState.h"

namespace gptc::emu {

/// Shape and resources of one launch.
struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint64_t dynShared = 0;
  uint64_t maxDynShared = 48 * 1024; ///< the function's opt-in limit
  bool racecheck = false;
  bool profile = false; ///< per-instruction counters (GPTC_EMU_STATS)
  uint64_t maxBlockInstructions = 0; ///< watchdog, 0: none
};

/// Checks the launch against the device's and the kernel's limits, then
/// runs every block; returns a CUresult. A fault prints one line on stderr
/// ("gptc-emu: <what> in kernel K at PTX line L, block (..), thread (..),
/// address 0x..") and is returned as its CUresult.
/// A profiled launch (cfg.profile) also fills `profile` when given.
int runKernel(const Module &mod, const Function &fn, const LaunchConfig &cfg,
              std::vector<uint8_t> params, LaunchCounters &counters,
              std::string &error, LaunchProfile *profile = nullptr);

/// Host threads blocks run on: GPTC_EMU_THREADS, else the host's cores.
unsigned emulatorThreads();

} // namespace gptc::emu

#endif
