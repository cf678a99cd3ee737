//===- ExecState.h - Run-time state of a launch on the emulator -*- C++ -*-===//
//
// A launch runs its blocks on a pool of host threads; a block runs its warps
// one after another on its host thread, each warp until every live lane
// waits at a barrier or has exited. A warp keeps its 32 lanes' registers
// side by side (slot * 32 + lane) so an instruction loops over lanes.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_EXECSTATE_H
#define GPTC_EMU_EXECSTATE_H

#include "emu/DeviceMemory.h"
#include "emu/PtxModule.h"

#include "emu/gptc_emu.h"

#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

namespace gptc::emu {

/// Counters of one launch (gptcEmuGetLaunchCounters).
struct LaunchCounters {
  uint64_t threadInstructions = 0;
  uint64_t warpInstructions = 0;
  uint64_t globalBytesLoaded = 0;
  uint64_t globalBytesStored = 0;
  uint64_t sharedBankConflicts = 0;
  uint64_t divergentBranches = 0;
  uint64_t sharedBytes = 0; ///< loaded and stored, lanes summed
  uint64_t localBytes = 0;  ///< loaded and stored, lanes summed
  /// Warp-level requests and the 32-byte sectors they touch (gptc_emu.h).
  uint64_t globalLoadRequests = 0, globalLoadSectors = 0;
  uint64_t globalStoreRequests = 0, globalStoreSectors = 0;
  uint64_t partialStoreSectors = 0;
  uint64_t uniqueGlobalSectors = 0; ///< profiled launches only
  uint64_t sharedRequests = 0, sharedWavefronts = 0;
  uint64_t accumulatorRoundTrips = 0;
  uint64_t classInstructions[GPTC_EMU_INSTR_CLASSES] = {};
  void add(const LaunchCounters &o);
};

/// What a profiled launch counts per instruction (per pc of the module).
struct PcCounters {
  uint64_t executed = 0;       ///< warp-level
  uint64_t requests = 0;       ///< memory requests (global or shared)
  uint64_t sectors = 0;        ///< global: 32-byte sectors
  uint64_t partialSectors = 0; ///< global stores: sectors written in part
  uint64_t wavefronts = 0;     ///< shared
  uint64_t roundTrips = 0;     ///< stores of addresses loaded this iteration
  void add(const PcCounters &o) {
    executed += o.executed;
    requests += o.requests;
    sectors += o.sectors;
    partialSectors += o.partialSectors;
    wavefronts += o.wavefronts;
    roundTrips += o.roundTrips;
  }
};

/// A profiled launch's per-instruction counters, indexed by pc
/// (GPTC_EMU_STATS).
struct LaunchProfile {
  std::vector<PcCounters> pcs;
};

/// The first fault of a launch: its CUresult and where it happened.
struct Fault {
  int code = 0;     ///< CUresult
  std::string what; ///< e.g. "out-of-bounds global store of 4 bytes"
  uint32_t line = 0;
  unsigned block[3] = {0, 0, 0}, thread[3] = {0, 0, 0};
  uint64_t address = 0;
  bool hasAddress = false;
};

struct LaunchState;
struct BlockState;

/// A cp.async copy queued by one lane until its group is waited for.
struct AsyncCopy {
  uint32_t lane;
  uint32_t group;         ///< the lane's commit count when it was issued
  uint64_t dst, src;      ///< shared offset, global address
  uint32_t size, srcSize; ///< bytes written; bytes read (the rest zeros)
};

/// Maximum call depth of a thread (.func calls).
constexpr int kMaxCallDepth = 32;

/// One warp of 32 lanes.
struct WarpState {
  const Module *mod = nullptr;
  LaunchState *launch = nullptr;
  BlockState *block = nullptr;
  uint64_t *regs = nullptr;  ///< numRegs * 32
  uint8_t *params = nullptr; ///< per-lane param areas (paramBytes each)
  uint8_t *local = nullptr;  ///< per-lane local frames (localBytes each)
  unsigned warpId = 0;
  unsigned firstThread = 0; ///< linear thread index of lane 0
  uint32_t live = 0;        ///< lanes that exist and have not exited
  uint32_t waiting = 0;     ///< lanes waiting at a barrier
  /// Lanes waiting at a warp-synchronous instruction for the other lanes
  /// of its member mask (which run until they arrive or exit).
  uint32_t parked = 0;
  int32_t pc[32] = {};
  int32_t callStack[32][kMaxCallDepth];
  uint8_t depth[32] = {};
  bool converged = true;
  LaunchCounters *counters = nullptr;
  /// Profiled launches: counters per pc and the global sectors touched.
  /// The warp's recent global loads in loops (pc and a hash of the lanes'
  /// addresses), to find stores back to them.
  PcCounters *pcCounters = nullptr;
  std::unordered_set<uint64_t> *sectorsTouched = nullptr;
  static constexpr unsigned kRecentLoads = 8;
  uint64_t recentLoadHash[kRecentLoads] = {};
  int32_t recentLoadPc[kRecentLoads] = {};
  unsigned recentLoadNext = 0;
  /// cp.async copies not completed yet, in issue order, and each lane's
  /// number of committed groups.
  std::vector<AsyncCopy> asyncCopies;
  uint32_t asyncGroups[32] = {};
  /// The global allocation of the last access: [cacheBase, cacheEnd) at
  /// cacheHost (allocations do not change during a launch).
  uint64_t cacheBase = 0, cacheEnd = 0;
  uint8_t *cacheHost = nullptr;

  uint64_t &r(int slot, unsigned lane) { return regs[slot * 32 + lane]; }
  /// Element i of a vector operand for `lane`: a register or an immediate.
  uint64_t vecElement(const Operand &v, unsigned i, unsigned lane) {
    return v.vec[i] == kVecImmediate ? (uint64_t)v.vecImm[i]
                                     : r(v.vec[i], lane);
  }
  /// Reads an operand's bits for `lane` (register, immediate or sreg).
  uint64_t get(const Operand &o, unsigned lane);
  uint64_t sreg(unsigned id, unsigned lane);
  /// Records a fault for `lane` (the launch stops after this instruction).
  void fault(int code, const Instr &in, unsigned lane, const std::string &what,
             uint64_t address, bool hasAddress = true);
  bool faulted() const;
};

/// One block's memory and warps.
struct BlockState {
  unsigned ctaid[3] = {0, 0, 0};
  unsigned nthreads = 0;
  uint64_t startInstructions = 0; ///< the worker's count when it started
  /// A lane faulted: the block stops (and the launch after this block).
  bool faulted = false;
  std::vector<uint8_t> shared;
  std::vector<uint8_t> local;
  std::vector<uint8_t> params;
  std::vector<uint64_t> regs;
  std::vector<WarpState> warps;
  /// Racecheck: per shared byte, the last writer thread+1 and a reader
  /// thread+1 (or ~0 for several) since the last barrier.
  std::vector<uint32_t> lastWriter, lastReader;
  /// Racecheck: per shared byte, the cp.async copies into it that have
  /// not completed.
  std::vector<uint16_t> asyncPending;
};

/// A launch: grid, block, parameters, checks and counters.
struct LaunchState {
  const Module *mod = nullptr;
  const Function *fn = nullptr;
  DeviceMemory *mem = nullptr;
  unsigned grid[3] = {1, 1, 1}, blockDim[3] = {1, 1, 1};
  uint64_t dynShared = 0;
  std::vector<uint8_t> kernelParams;
  bool racecheck = false;
  bool profile = false; ///< per-pc counters and unique sectors
  /// The watchdog: a block's thread-instructions beyond this fail the
  /// launch with CUDA_ERROR_LAUNCH_TIMEOUT (0: no limit).
  uint64_t maxBlockInstructions = 0;
  uint64_t startNs = 0;
  // First fault wins; guarded by the executor's mutex.
  Fault fault;
  volatile bool stop = false;
};

} // namespace gptc::emu

#endif
