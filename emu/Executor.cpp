//===- Executor.cpp - Warps, blocks and grids on host threads -------------===//
//
// A warp steps its lanes together while they share a pc (the converged
// fast path); after a divergent branch each lane keeps its own pc and the
// warp runs the lanes at the smallest pc first, which reconverges them at
// the join point of structured code. A block runs each warp until all its
// live lanes wait at a barrier or have exited, then releases the barrier.
// Blocks are taken from a shared counter by OpenMP's pool of host threads.
//
//===----------------------------------------------------------------------===//

#include "emu/Executor.h"
#include "emu/ExecOps.h"

#include <atomic>
#include <chrono>
#include <cuda.h>
#include <mutex>
#include <omp.h>
#include <thread>

namespace gptc::emu {

ExecFn warpSyncHandler();

void LaunchCounters::add(const LaunchCounters &o) {
  threadInstructions += o.threadInstructions;
  warpInstructions += o.warpInstructions;
  globalBytesLoaded += o.globalBytesLoaded;
  globalBytesStored += o.globalBytesStored;
  sharedBankConflicts += o.sharedBankConflicts;
  divergentBranches += o.divergentBranches;
  sharedBytes += o.sharedBytes;
  localBytes += o.localBytes;
  globalLoadRequests += o.globalLoadRequests;
  globalLoadSectors += o.globalLoadSectors;
  globalStoreRequests += o.globalStoreRequests;
  globalStoreSectors += o.globalStoreSectors;
  partialStoreSectors += o.partialStoreSectors;
  uniqueGlobalSectors += o.uniqueGlobalSectors;
  sharedRequests += o.sharedRequests;
  sharedWavefronts += o.sharedWavefronts;
  accumulatorRoundTrips += o.accumulatorRoundTrips;
  for (unsigned c = 0; c < GPTC_EMU_INSTR_CLASSES; ++c)
    classInstructions[c] += o.classInstructions[c];
}

namespace {
std::mutex faultMutex;

uint64_t nowNs() {
  return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

bool WarpState::faulted() const { return block->faulted; }

void WarpState::fault(int code, const Instr &in, unsigned lane,
                      const std::string &what, uint64_t address,
                      bool hasAddress) {
  block->faulted = true;
  std::lock_guard<std::mutex> lock(faultMutex);
  if (launch->fault.code)
    return;
  Fault &f = launch->fault;
  f.code = code;
  f.what = what;
  f.line = in.line;
  unsigned t = firstThread + lane;
  const unsigned *bd = launch->blockDim;
  f.thread[0] = t % bd[0];
  f.thread[1] = t / bd[0] % bd[1];
  f.thread[2] = t / (bd[0] * bd[1]);
  for (int i = 0; i < 3; ++i)
    f.block[i] = block->ctaid[i];
  f.address = address;
  f.hasAddress = hasAddress;
  launch->stop = true;
}

uint64_t WarpState::sreg(unsigned id, unsigned lane) {
  unsigned t = firstThread + lane;
  const unsigned *bd = launch->blockDim;
  switch ((Sreg)id) {
  case Sreg::TidX:
    return t % bd[0];
  case Sreg::TidY:
    return t / bd[0] % bd[1];
  case Sreg::TidZ:
    return t / (bd[0] * bd[1]);
  case Sreg::NtidX:
    return bd[0];
  case Sreg::NtidY:
    return bd[1];
  case Sreg::NtidZ:
    return bd[2];
  case Sreg::CtaidX:
    return block->ctaid[0];
  case Sreg::CtaidY:
    return block->ctaid[1];
  case Sreg::CtaidZ:
    return block->ctaid[2];
  case Sreg::NctaidX:
    return launch->grid[0];
  case Sreg::NctaidY:
    return launch->grid[1];
  case Sreg::NctaidZ:
    return launch->grid[2];
  case Sreg::LaneId:
    return lane;
  case Sreg::WarpId:
    return warpId;
  case Sreg::NWarpId:
    return 64;
  case Sreg::SmId:
    return 0;
  case Sreg::NSmId:
    return 132;
  case Sreg::GridId:
    return 1;
  case Sreg::Clock:
    return (uint32_t)(nowNs() - launch->startNs);
  case Sreg::Clock64:
  case Sreg::GlobalTimer:
    return nowNs() - launch->startNs;
  case Sreg::LanemaskEq:
    return 1u << lane;
  case Sreg::LanemaskLt:
    return (1u << lane) - 1;
  case Sreg::LanemaskLe:
    return (2ull << lane) - 1;
  case Sreg::LanemaskGt:
    return ~((2ull << lane) - 1) & 0xffffffffu;
  case Sreg::LanemaskGe:
    return ~((1ull << lane) - 1) & 0xffffffffu;
  case Sreg::DynSmemSize:
    return launch->dynShared;
  case Sreg::TotalSmemSize:
    return block->shared.size();
  }
  return 0;
}

namespace {

/// The lanes of `mask` whose guard predicate holds.
inline uint32_t guarded(WarpState &w, const Instr &in, uint32_t mask) {
  if (in.guard < 0)
    return mask;
  uint32_t r = 0;
  FOR_LANES(mask, l)
  r |= (uint32_t)((w.r(in.guard, l) != 0) != in.guardNeg) << l;
  return r;
}

/// Executes a call, ret, exit, trap or barrier for the lanes of `exec`
/// (the others of `mask` step over it). Lane pcs are in w.pc.
void control(WarpState &w, const Instr &in, int32_t pc, uint32_t mask,
             uint32_t exec) {
  const Module &m = *w.mod;
  FOR_LANES(mask & ~exec, l) w.pc[l] = pc + 1;
  switch (in.ctl) {
  case Ctl::Bra: {
    FOR_LANES(exec, l) w.pc[l] = in.target;
    if (exec && exec != mask && w.counters)
      ++w.counters->divergentBranches;
    break;
  }
  case Ctl::Call: {
    const CallSite &cs = m.callSites[in.callArgs];
    const Function &f = m.funcs[in.target];
    FOR_LANES(exec, l) {
      uint8_t *pa = w.params + (size_t)l * m.paramBytes;
      for (int d = 0; d < w.depth[l]; ++d)
        if (m.code[w.callStack[l][d] - 1].target == in.target) {
          w.fault(CUDA_ERROR_ILLEGAL_INSTRUCTION, in, l,
                  "recursive call of '" + f.name + "' (not supported)", 0,
                  false);
          return;
        }
      if (w.depth[l] == kMaxCallDepth) {
        w.fault(CUDA_ERROR_HARDWARE_STACK_ERROR, in, l, "call stack overflow",
                0, false);
        return;
      }
      for (size_t i = 0; i < cs.args.size() && i < f.params.size(); ++i)
        std::memmove(pa + f.params[i].first, pa + cs.args[i].first,
                     std::min(cs.args[i].second, f.params[i].second));
      w.callStack[l][w.depth[l]++] = pc + 1;
      w.pc[l] = (int32_t)f.firstPc;
    }
    break;
  }
  case Ctl::Ret:
    FOR_LANES(exec, l) {
      if (w.depth[l] == 0) {
        w.live &= ~(1u << l);
        continue;
      }
      int32_t back = w.callStack[l][--w.depth[l]];
      const Instr &call = m.code[back - 1];
      const CallSite &cs = m.callSites[call.callArgs];
      const Function &f = m.funcs[call.target];
      if (cs.retOffset >= 0 && f.retOffset >= 0) {
        uint8_t *pa = w.params + (size_t)l * m.paramBytes;
        std::memmove(pa + cs.retOffset, pa + f.retOffset,
                     std::min(cs.retSize, f.retSize));
      }
      w.pc[l] = back;
    }
    break;
  case Ctl::Exit:
    // A thread's cp.async copies complete by the time it exits.
    if (!w.asyncCopies.empty())
      completeAsyncCopies(w, exec, UINT64_MAX);
    w.live &= ~exec;
    break;
  case Ctl::Bar:
    w.waiting |= exec;
    FOR_LANES(exec, l) w.pc[l] = pc; // released by the block
    break;
  case Ctl::Trap:
    if (exec)
      w.fault(CUDA_ERROR_LAUNCH_FAILED, in, __builtin_ctz(exec),
              "trap instruction", 0, false);
    break;
  default:
    break;
  }
}

/// Runs a warp until every live lane waits at a barrier or has exited.
void runWarp(WarpState &w) {
  const Instr *code = w.mod->code.data();
  LaunchCounters &cnt = *w.counters;
  bool forceSync = false;
  const bool &dead = w.block->faulted;
  while (!dead) {
    uint32_t active = w.live & ~w.waiting & ~w.parked;
    if (!active) {
      if (!w.parked)
        return;
      // Nothing else can run: the parked lanes go ahead (and fault if
      // their member mask still names lanes elsewhere).
      w.parked = 0;
      forceSync = true;
      continue;
    }
    int32_t pc;
    uint32_t mask;
    if (w.converged) {
      pc = w.pc[__builtin_ctz(active)];
      mask = active;
      // The converged fast path: straight-line code of a whole warp.
      while (true) {
        const Instr &in = code[pc];
        if (in.ctl != Ctl::None && in.ctl != Ctl::WarpSync)
          break;
        uint32_t exec = guarded(w, in, mask);
        if (exec)
          in.exec(w, in, exec);
        cnt.threadInstructions += laneCount(exec);
        ++cnt.warpInstructions;
        ++cnt.classInstructions[in.iclass];
        if (w.pcCounters)
          ++w.pcCounters[pc].executed;
        ++pc;
        if (dead)
          break;
      }
      FOR_LANES(mask, l) w.pc[l] = pc;
      if (dead)
        return;
    } else {
      pc = INT32_MAX;
      FOR_LANES(active, l) pc = std::min(pc, w.pc[l]);
      mask = 0;
      FOR_LANES(active, l) mask |= (uint32_t)(w.pc[l] == pc) << l;
      // Parked lanes at this pc join the lanes that caught up with them.
      uint32_t join = 0;
      FOR_LANES(w.parked, l) join |= (uint32_t)(w.pc[l] == pc) << l;
      mask |= join;
      w.parked &= ~join;
    }
    const Instr &in = code[pc];
    uint32_t exec = guarded(w, in, mask);
    if (in.ctl == Ctl::WarpSync && exec && !forceSync) {
      // No member-mask operand: an .aligned instruction of the whole warp.
      uint32_t members = in.memberOp >= 0 ? (uint32_t)w.get(in.ops[in.memberOp],
                                                            __builtin_ctz(exec))
                                          : ~0u;
      if (members & w.live & ~w.waiting & ~exec) {
        w.parked |= mask;
        w.converged = false;
        continue;
      }
    }
    forceSync = false;
    cnt.threadInstructions += laneCount(exec);
    ++cnt.warpInstructions;
    ++cnt.classInstructions[in.iclass];
    if (w.pcCounters)
      ++w.pcCounters[pc].executed;
    if (in.ctl == Ctl::None || in.ctl == Ctl::WarpSync) {
      if (exec)
        in.exec(w, in, exec);
      FOR_LANES(mask, l) w.pc[l] = pc + 1;
    } else {
      control(w, in, pc, mask, exec);
      if (w.launch->maxBlockInstructions &&
          cnt.threadInstructions - w.block->startInstructions >
              w.launch->maxBlockInstructions &&
          exec)
        w.fault(CUDA_ERROR_LAUNCH_TIMEOUT, in, __builtin_ctz(exec),
                "watchdog: the block ran over " +
                    std::to_string(w.launch->maxBlockInstructions) +
                    " thread-instructions (GPTC_EMU_WATCHDOG)",
                0, false);
    }
    // Converged again when every active lane shares one pc.
    active = w.live & ~w.waiting;
    bool same = w.waiting == 0;
    if (same && active) {
      int32_t p0 = w.pc[__builtin_ctz(active)];
      FOR_LANES(active, l) same &= w.pc[l] == p0;
    }
    w.converged = same;
  }
}

/// Runs one block to completion (or to the launch's first fault).
void runBlock(LaunchState &ls, BlockState &b, LaunchCounters &cnt,
              PcCounters *pcs, std::unordered_set<uint64_t> *sectors) {
  const Module &m = *ls.mod;
  unsigned nwarps = (b.nthreads + 31) / 32;
  std::fill(b.shared.begin(), b.shared.end(), 0);
  if (ls.racecheck) {
    std::fill(b.lastWriter.begin(), b.lastWriter.end(), 0);
    std::fill(b.lastReader.begin(), b.lastReader.end(), 0);
    std::fill(b.asyncPending.begin(), b.asyncPending.end(), 0);
  }
  for (unsigned i = 0; i < nwarps; ++i) {
    WarpState &w = b.warps[i];
    w.mod = &m;
    w.launch = &ls;
    w.block = &b;
    w.regs = b.regs.data() + (size_t)i * m.numRegs * 32;
    w.params = b.params.data() + (size_t)i * 32 * m.paramBytes;
    w.local = b.local.data() + (size_t)i * 32 * m.localBytes;
    w.warpId = i;
    w.firstThread = i * 32;
    unsigned n = std::min(32u, b.nthreads - i * 32);
    w.live = n == 32 ? ~0u : (1u << n) - 1;
    w.waiting = 0;
    w.converged = true;
    w.counters = &cnt;
    w.pcCounters = pcs;
    w.sectorsTouched = sectors;
    w.recentLoadNext = 0;
    std::fill(std::begin(w.recentLoadPc), std::end(w.recentLoadPc), -1);
    w.cacheBase = w.cacheEnd = 0;
    w.asyncCopies.clear();
    std::fill(std::begin(w.asyncGroups), std::end(w.asyncGroups), 0u);
    for (unsigned l = 0; l < 32; ++l) {
      w.pc[l] = (int32_t)ls.fn->firstPc;
      w.depth[l] = 0;
    }
  }
  b.faulted = false;
  b.startInstructions = cnt.threadInstructions;
  while (true) {
    bool anyWaiting = false;
    for (unsigned i = 0; i < nwarps && !ls.stop; ++i) {
      runWarp(b.warps[i]);
      if (b.faulted)
        return;
      anyWaiting |= b.warps[i].waiting != 0;
    }
    if (!anyWaiting || ls.stop)
      return;
    // Every live thread waits at a barrier (exited ones count as arrived).
    for (unsigned i = 0; i < nwarps; ++i) {
      WarpState &w = b.warps[i];
      FOR_LANES(w.waiting, l) w.pc[l] += 1;
      w.waiting = 0;
      uint32_t live = w.live;
      bool same = true;
      if (live) {
        int32_t p0 = w.pc[__builtin_ctz(live)];
        FOR_LANES(live, l) same &= w.pc[l] == p0;
      }
      w.converged = same;
    }
    if (ls.racecheck) {
      std::fill(b.lastWriter.begin(), b.lastWriter.end(), 0);
      std::fill(b.lastReader.begin(), b.lastReader.end(), 0);
    }
  }
}

void nopOp(WarpState &, const Instr &, uint32_t) {}

bool selectControl(Instr &in, DecodeCtx &c, std::string &why, Ctl ctl) {
  in.ctl = ctl;
  in.exec = nopOp;
  if (ctl == Ctl::Bra && in.nops != 1) {
    why = "bra takes one label";
    return false;
  }
  return true;
}

const char *spaceNote(uint64_t addr, DeviceMemory &mem) {
  if (addr - mem.sharedWindow() < (1ull << 32))
    return " (generic shared)";
  if (addr - mem.localWindow() < (1ull << 32))
    return " (generic local)";
  return "";
}

} // namespace

void registerControlOps(SelectorMap &s) {
  s["bra"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectControl(in, c, why, Ctl::Bra);
  };
  s["call"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectControl(in, c, why, Ctl::Call);
  };
  s["ret"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectControl(in, c, why, Ctl::Ret);
  };
  s["exit"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectControl(in, c, why, Ctl::Exit);
  };
  s["trap"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectControl(in, c, why, Ctl::Trap);
  };
  auto bar = [](Instr &in, DecodeCtx &c, std::string &why) {
    if (c.take(".warp")) {
      in.exec = warpSyncHandler();
      in.ctl = Ctl::WarpSync;
      in.memberOp = 0;
      return in.nops == 1;
    }
    c.take(".cta");
    if (c.take(".arrive") || c.take(".red")) {
      why = "bar.arrive / bar.red are not implemented";
      return false;
    }
    if (in.nops == 2 && !(in.ops[1].kind == Operand::Imm)) {
      why = "barrier thread counts in registers are not implemented";
      return false;
    }
    in.mode = in.nops == 2;
    return selectControl(in, c, why, Ctl::Bar);
  };
  s["bar"] = bar;
  s["barrier"] = bar;
}

unsigned emulatorThreads() {
  if (const char *e = std::getenv("GPTC_EMU_THREADS"))
    if (int n = std::atoi(e); n > 0)
      return (unsigned)n;
  return std::max(1u, std::thread::hardware_concurrency());
}

int runKernel(const Module &mod, const Function &fn, const LaunchConfig &cfg,
              std::vector<uint8_t> params, LaunchCounters &counters,
              std::string &error, LaunchProfile *profile) {
  uint64_t nthreads = (uint64_t)cfg.block[0] * cfg.block[1] * cfg.block[2];
  auto limitError = [&](const std::string &what) {
    error = "gptc-emu: launch of kernel " + fn.name + ": " + what;
    return (int)CUDA_ERROR_INVALID_VALUE;
  };
  if (cfg.block[0] > 1024 || cfg.block[1] > 1024 || cfg.block[2] > 64 ||
      nthreads > 1024 || nthreads == 0)
    return limitError("block (" + std::to_string(cfg.block[0]) + "," +
                      std::to_string(cfg.block[1]) + "," +
                      std::to_string(cfg.block[2]) +
                      ") exceeds 1024 threads or a dimension limit");
  if (nthreads > (uint64_t)fn.maxThreads())
    return limitError(std::to_string(nthreads) +
                      " threads per block exceed the kernel's .maxntid/"
                      ".reqntid (" +
                      std::to_string(fn.maxThreads()) + ")");
  if (fn.reqntid[0] && (cfg.block[0] != fn.reqntid[0] ||
                        cfg.block[1] != std::max(1u, fn.reqntid[1]) ||
                        cfg.block[2] != std::max(1u, fn.reqntid[2])))
    return limitError("block shape differs from the kernel's .reqntid");
  if (cfg.grid[0] == 0 || cfg.grid[1] == 0 || cfg.grid[2] == 0 ||
      cfg.grid[0] > 2147483647u || cfg.grid[1] > 65535 || cfg.grid[2] > 65535)
    return limitError("grid (" + std::to_string(cfg.grid[0]) + "," +
                      std::to_string(cfg.grid[1]) + "," +
                      std::to_string(cfg.grid[2]) +
                      ") exceeds the device limits (2^31-1, 65535, 65535)");
  uint64_t sharedBytes = mod.staticShared + cfg.dynShared;
  if (cfg.dynShared > cfg.maxDynShared ||
      sharedBytes > std::max<uint64_t>(48 * 1024, cfg.maxDynShared) ||
      sharedBytes > 227 * 1024) {
    error = "gptc-emu: launch of kernel " + fn.name + ": " +
            std::to_string(sharedBytes) +
            " bytes of shared memory exceed the limit (48 KB, or the opt-in "
            "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES up to 227 KB)";
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (params.size() < fn.kernelParamBytes)
    return limitError("kernel parameters missing");

  LaunchState ls;
  ls.mod = &mod;
  ls.fn = &fn;
  ls.mem = &DeviceMemory::get();
  for (int i = 0; i < 3; ++i) {
    ls.grid[i] = cfg.grid[i];
    ls.blockDim[i] = cfg.block[i];
  }
  ls.dynShared = cfg.dynShared;
  ls.kernelParams = std::move(params);
  ls.racecheck = cfg.racecheck;
  ls.profile = cfg.profile;
  ls.maxBlockInstructions = cfg.maxBlockInstructions;
  ls.startNs = nowNs();

  uint64_t nblocks = (uint64_t)cfg.grid[0] * cfg.grid[1] * cfg.grid[2];
  unsigned nworkers = (unsigned)std::min<uint64_t>(emulatorThreads(), nblocks);
  std::atomic<uint64_t> next{0};
  std::vector<LaunchCounters> perWorker(nworkers);
  // A profiled launch: each worker's counters per pc and sectors touched.
  std::vector<std::vector<PcCounters>> workerPcs(ls.profile ? nworkers : 0);
  std::vector<std::unordered_set<uint64_t>> workerSectors(workerPcs.size());
  for (auto &v : workerPcs)
    v.resize(mod.code.size());
  auto worker = [&](unsigned id) {
    BlockState b;
    b.nthreads = (unsigned)nthreads;
    unsigned nwarps = (b.nthreads + 31) / 32;
    b.shared.resize(sharedBytes);
    if (ls.racecheck) {
      b.lastWriter.resize(sharedBytes);
      b.lastReader.resize(sharedBytes);
      b.asyncPending.resize(sharedBytes);
    }
    b.regs.assign((size_t)nwarps * 32 * mod.numRegs, 0);
    b.params.assign((size_t)nwarps * 32 * mod.paramBytes, 0);
    b.local.assign((size_t)nwarps * 32 * mod.localBytes, 0);
    b.warps.resize(nwarps);
    while (!ls.stop) {
      uint64_t i = next++;
      if (i >= nblocks)
        break;
      b.ctaid[0] = (unsigned)(i % cfg.grid[0]);
      b.ctaid[1] = (unsigned)(i / cfg.grid[0] % cfg.grid[1]);
      b.ctaid[2] = (unsigned)(i / ((uint64_t)cfg.grid[0] * cfg.grid[1]));
      runBlock(ls, b, perWorker[id],
               ls.profile ? workerPcs[id].data() : nullptr,
               ls.profile ? &workerSectors[id] : nullptr);
    }
  };
  // The blocks run on OpenMP's pool, the one the emulated cuBLASLt's GEMMs
  // (the runtime's CPU callbacks) run on: a second pool would leave its
  // idle threads spinning against the other's busy ones.
  if (nworkers <= 1) {
    worker(0);
  } else {
#pragma omp parallel num_threads(nworkers)
    worker((unsigned)omp_get_thread_num());
  }
  counters = LaunchCounters();
  for (auto &c : perWorker)
    counters.add(c);
  if (ls.profile) {
    for (size_t i = 1; i < workerSectors.size(); ++i)
      workerSectors[0].insert(workerSectors[i].begin(), workerSectors[i].end());
    counters.uniqueGlobalSectors = workerSectors[0].size();
    if (profile) {
      profile->pcs.assign(mod.code.size(), PcCounters());
      for (auto &v : workerPcs)
        for (size_t pc = 0; pc < v.size(); ++pc)
          profile->pcs[pc].add(v[pc]);
    }
  }
  if (ls.fault.code) {
    const Fault &f = ls.fault;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  " in kernel %s at PTX line %u, block (%u,%u,%u), thread "
                  "(%u,%u,%u)",
                  fn.name.c_str(), f.line, f.block[0], f.block[1], f.block[2],
                  f.thread[0], f.thread[1], f.thread[2]);
    error = "gptc-emu: " + f.what + buf;
    if (f.hasAddress) {
      std::snprintf(buf, sizeof buf, ", address 0x%llx",
                    (unsigned long long)f.address);
      error += buf;
      error += spaceNote(f.address, *ls.mem);
    }
    return f.code;
  }
  return CUDA_SUCCESS;
}

} // namespace gptc::emu
