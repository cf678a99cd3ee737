//===- ExecMemory.cpp - Loads, stores, atomics and address conversion -----===//
//
// Every access is checked before it is served: a global address must lie
// inside one live allocation, a shared one inside the block's static plus
// dynamic shared memory, a local one inside the thread's frame, and every
// address must be aligned to the access size. A violation records the
// launch's fault (CUDA_ERROR_ILLEGAL_ADDRESS / _MISALIGNED_ADDRESS) and
// the access is dropped. Racecheck mode also tracks, per shared byte, who
// wrote and read it since the last barrier.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <cuda.h>
#include <type_traits>

namespace gptc::emu {

namespace {

const char *spaceName(Space s) {
  switch (s) {
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Const:
    return "const";
  default:
    return "generic";
  }
}

/// Reports a shared-memory hazard between two warps (racecheck).
void raceCheck(WarpState &w, const Instr &in, unsigned lane, uint64_t off,
               unsigned size, bool write) {
  BlockState &b = *w.block;
  uint32_t self = w.firstThread + lane + 1;
  for (unsigned i = 0; i < size; ++i)
    if (b.asyncPending[off + i]) {
      w.fault(CUDA_ERROR_ILLEGAL_ADDRESS, in, lane,
              std::string("racecheck: shared-memory ") +
                  (write ? "write" : "read") +
                  " of bytes a cp.async has not completed (no "
                  "cp.async.wait_group or wait_all for it)",
              off);
      return;
    }
  for (unsigned i = 0; i < size; ++i) {
    uint32_t &wr = b.lastWriter[off + i], &rd = b.lastReader[off + i];
    auto otherWarp = [&](uint32_t t) {
      return t && (t - 1) / 32 != (self - 1) / 32;
    };
    const char *hazard = nullptr;
    uint32_t other = 0;
    if (otherWarp(wr)) {
      hazard = write ? "write-after-write" : "read-after-write";
      other = wr;
    } else if (write && otherWarp(rd)) {
      hazard = "write-after-read";
      other = rd;
    }
    if (hazard) {
      w.fault(CUDA_ERROR_LAUNCH_FAILED, in, lane,
              std::string("racecheck: shared-memory ") + hazard +
                  " hazard with thread " + std::to_string(other - 1) +
                  " (no barrier between them)",
              off);
      return;
    }
    if (write)
      wr = self;
    else
      rd = self;
  }
}

} // namespace

/// Translates an access of `size` bytes at `addr` in `space` for `lane`
/// to a host pointer, or records a fault and returns null. Atomics are
/// checked like stores but never race with each other (racecheck skips
/// them).
uint8_t *resolveAccess(WarpState &w, const Instr &in, unsigned lane,
                       uint64_t addr, Space space, unsigned size, bool write,
                       bool kernelParam, bool atomic) {
  DeviceMemory &mem = *w.launch->mem;
  if (space == Space::Generic) {
    if (addr - mem.sharedWindow() < (1ull << 32)) {
      space = Space::Shared;
      addr -= mem.sharedWindow();
    } else if (addr - mem.localWindow() < (1ull << 32)) {
      space = Space::Local;
      addr -= mem.localWindow();
    } else {
      space = Space::Global;
    }
  }
  if (addr & (size - 1)) {
    w.fault(CUDA_ERROR_MISALIGNED_ADDRESS, in, lane,
            std::string("misaligned ") + spaceName(space) +
                (write ? " store" : " load") + " of " + std::to_string(size) +
                " bytes",
            addr);
    return nullptr;
  }
  uint8_t *p = nullptr;
  BlockState &b = *w.block;
  switch (space) {
  case Space::Global:
  case Space::Const:
    if (addr < w.cacheBase || addr + size > w.cacheEnd) {
      uint64_t base, bytes;
      uint8_t *host;
      if (mem.lookup(addr, base, bytes, host)) {
        w.cacheBase = base;
        w.cacheEnd = base + bytes;
        w.cacheHost = host;
      }
    }
    if (addr >= w.cacheBase && addr + size <= w.cacheEnd)
      p = w.cacheHost + (addr - w.cacheBase);
    if (p && w.counters)
      (write ? w.counters->globalBytesStored : w.counters->globalBytesLoaded) +=
          size;
    break;
  case Space::Shared:
    if (addr + size <= b.shared.size()) {
      p = b.shared.data() + addr;
      if (w.launch->racecheck && !atomic)
        raceCheck(w, in, lane, addr, size, write);
      if (w.counters)
        w.counters->sharedBytes += size;
    }
    break;
  case Space::Local:
    if (addr + size <= w.mod->localBytes) {
      p = w.local + (size_t)lane * w.mod->localBytes + addr;
      if (w.counters)
        w.counters->localBytes += size;
    }
    break;
  case Space::Param:
    if (kernelParam) {
      if (!write && addr + size <= w.launch->kernelParams.size())
        p = w.launch->kernelParams.data() + addr;
    } else if (addr + size <= w.mod->paramBytes) {
      p = w.params + (size_t)lane * w.mod->paramBytes + addr;
    }
    break;
  default:
    break;
  }
  if (!p)
    w.fault(CUDA_ERROR_ILLEGAL_ADDRESS, in, lane,
            std::string("out-of-bounds ") + spaceName(space) +
                (write ? " store" : " load") + " of " + std::to_string(size) +
                " bytes",
            addr);
  return p;
}

namespace {

/// An address operand's value in every lane: its base register's lane
/// slots (or none: step 0 over a zero) plus the offset.
struct LaneAddress {
  const uint64_t *base;
  unsigned step = 1;
  uint64_t offset;
  LaneAddress(WarpState &w, const Operand &a) : offset((uint64_t)a.imm) {
    static const uint64_t zero = 0;
    if (a.reg >= 0) {
      base = &w.regs[a.reg * 32];
    } else {
      base = &zero;
      step = 0;
    }
  }
  uint64_t operator[](unsigned lane) const {
    return base[lane * step] + offset;
  }
};

bool paramIsKernel(const WarpState &w, const Instr &in, const Operand &a) {
  return a.kernelParam || (a.reg >= 0 && in.space == Space::Param &&
                           w.mod->funcs[in.func].isEntry);
}

/// Counts one warp-level access of `bytes` per lane (ExecCounters.cpp):
/// a global request's sectors or a shared request's wavefronts. A generic
/// access counts in the space its first active lane's address lies in.
void countAccess(WarpState &w, const Instr &in, uint32_t mask,
                 const LaneAddress &address, unsigned bytes, bool write) {
  // Shared wavefronts are always counted; global sectors when profiled.
  if (!w.counters || (in.space == Space::Global && !w.launch->profile))
    return;
  uint64_t addr[32];
  FOR_LANES(mask, l) addr[l] = address[l];
  Space space = in.space;
  if (space == Space::Generic) {
    DeviceMemory &mem = *w.launch->mem;
    uint64_t a = addr[__builtin_ctz(mask)];
    space = a - mem.sharedWindow() < (1ull << 32)  ? Space::Shared
            : a - mem.localWindow() < (1ull << 32) ? Space::Local
                                                   : Space::Global;
    if (space == Space::Shared)
      FOR_LANES(mask, l) addr[l] -= mem.sharedWindow();
  }
  if (space == Space::Shared)
    countSharedRequest(w, in, mask, addr, bytes);
  else if (space == Space::Global && w.launch->profile)
    countGlobalRequest(w, in, mask, addr, bytes, write);
}

/// Where a warp's accesses land: lane l's address `addr` is at host
/// address addr + offset + l * laneStride.
struct WarpWindow {
  intptr_t offset = 0;
  size_t laneStride = 0;
  uint8_t *at(uint64_t addr, unsigned lane) const {
    return (uint8_t *)(addr + offset + lane * laneStride);
  }
};

/// The warp-wide check of an access of `size` bytes per lane: when every
/// lane's address is aligned and lies inside one global allocation, the
/// block's shared memory, the thread's local frame or parameters, or the
/// kernel's parameters, where the lanes' accesses land. False when some
/// lane may fault (or racecheck watches shared memory): the caller then
/// checks lane by lane, which reports the faulting lane.
bool warpWindow(WarpState &w, const Instr &in, uint32_t mask,
                const LaneAddress &address, unsigned size, bool write,
                bool kernelParam, WarpWindow &win) {
  uint64_t lo = UINT64_MAX, hi = 0, bits = 0;
  forEachLane(mask, [&](unsigned l) {
    uint64_t addr = address[l];
    lo = std::min(lo, addr);
    hi = std::max(hi, addr);
    bits |= addr;
  });
  if (bits & (size - 1) || hi + size < hi)
    return false;
  DeviceMemory &mem = *w.launch->mem;
  auto inWindow = [](uint64_t addr, uint64_t window) {
    return addr - window < (1ull << 32);
  };
  Space space = in.space;
  uint64_t window = 0;
  if (space == Space::Generic) {
    for (uint64_t base : {mem.sharedWindow(), mem.localWindow()})
      if (inWindow(lo, base) || inWindow(hi, base)) {
        if (!inWindow(lo, base) || !inWindow(hi, base))
          return false;
        window = base;
      }
    space = window == 0                    ? Space::Global
            : window == mem.sharedWindow() ? Space::Shared
                                           : Space::Local;
  }
  uint64_t end = hi - window + size;
  win.offset = -(intptr_t)window;
  switch (space) {
  case Space::Shared:
    if (w.launch->racecheck || end > w.block->shared.size())
      return false;
    win.offset += (intptr_t)w.block->shared.data();
    if (w.counters)
      w.counters->sharedBytes += (uint64_t)size * laneCount(mask);
    return true;
  case Space::Local:
    if (end > w.mod->localBytes)
      return false;
    win.offset += (intptr_t)w.local;
    win.laneStride = w.mod->localBytes;
    if (w.counters)
      w.counters->localBytes += (uint64_t)size * laneCount(mask);
    return true;
  case Space::Param:
    if (kernelParam) {
      if (write || end > w.launch->kernelParams.size())
        return false;
      win.offset += (intptr_t)w.launch->kernelParams.data();
      return true;
    }
    if (end > w.mod->paramBytes)
      return false;
    win.offset += (intptr_t)w.params;
    win.laneStride = w.mod->paramBytes;
    return true;
  case Space::Global:
  case Space::Const:
    break;
  default:
    return false;
  }
  if (lo < w.cacheBase || hi + size > w.cacheEnd) {
    uint64_t base, bytes;
    uint8_t *host;
    if (!mem.lookup(lo, base, bytes, host) || hi + size > base + bytes)
      return false;
    w.cacheBase = base;
    w.cacheEnd = base + bytes;
    w.cacheHost = host;
  }
  win.offset = (intptr_t)w.cacheHost - (intptr_t)w.cacheBase;
  if (w.counters)
    (write ? w.counters->globalBytesStored : w.counters->globalBytesLoaded) +=
        (uint64_t)size * laneCount(mask);
  return true;
}

/// Reads `size` bytes (1, 2, 4 or 8) at `p`, sign-extended when `sext`.
/// One load of the access's width: a byte copy into a 64-bit temporary
/// would stall store-to-load forwarding on every access.
template <class T> inline uint64_t loadAs(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline uint64_t loadBits(const uint8_t *p, unsigned size, bool sext, Ty t) {
  uint64_t v = size == 4   ? loadAs<uint32_t>(p)
               : size == 8 ? loadAs<uint64_t>(p)
               : size == 2 ? loadAs<uint16_t>(p)
                           : loadAs<uint8_t>(p);
  return sext ? (uint64_t)extendBits(v, t) : v;
}

/// Writes the low `size` bytes (1, 2, 4 or 8) of `v` at `p`.
inline void storeBits(uint8_t *p, unsigned size, uint64_t v) {
  if (size == 4) {
    uint32_t x = (uint32_t)v;
    std::memcpy(p, &x, 4);
  } else if (size == 8) {
    std::memcpy(p, &v, 8);
  } else if (size == 2) {
    uint16_t x = (uint16_t)v;
    std::memcpy(p, &x, 2);
  } else {
    *p = (uint8_t)v;
  }
}

/// The common load: every lane's access checked at once, one register
/// destination, `T` the loaded type (signed types sign-extend).
template <class T>
void loadLanes(uint32_t mask, const LaneAddress &address, const WarpWindow &win,
               uint64_t *dst) {
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  forEachLane(mask, [&](unsigned l) {
    T v;
    std::memcpy(&v, win.at(address[l], l), sizeof v);
    dst[l] = (uint64_t)(Wide)v;
  });
}

/// ld / ldu: in.op 0. Vector destinations load consecutive elements.
void ldOp(WarpState &w, const Instr &in, uint32_t mask) {
  const Operand &d = in.ops[0], &a = in.ops[1];
  unsigned size = tySize(in.ty);
  bool kp = paramIsKernel(w, in, a);
  bool sext = tyIsSigned(in.ty);
  unsigned n = d.kind == Operand::Vec ? d.nvec : 1;
  LaneAddress address(w, a);
  if (in.space != Space::Param && in.space != Space::Const &&
      in.space != Space::Local)
    countAccess(w, in, mask, address, size * n, false);
  WarpWindow win;
  bool checked = warpWindow(w, in, mask, address, size * n, false, kp, win);
  if (checked && d.kind == Operand::Reg) {
    uint64_t *dst = &w.regs[d.reg * 32];
    switch ((int)size * (sext ? -1 : 1)) {
    case 4:
      return loadLanes<uint32_t>(mask, address, win, dst);
    case 8:
      return loadLanes<uint64_t>(mask, address, win, dst);
    case 2:
      return loadLanes<uint16_t>(mask, address, win, dst);
    case 1:
      return loadLanes<uint8_t>(mask, address, win, dst);
    case -4:
      return loadLanes<int32_t>(mask, address, win, dst);
    case -8:
      return loadLanes<int64_t>(mask, address, win, dst);
    case -2:
      return loadLanes<int16_t>(mask, address, win, dst);
    case -1:
      return loadLanes<int8_t>(mask, address, win, dst);
    }
  }
  FOR_LANES(mask, l) {
    uint64_t addr = address[l];
    const uint8_t *p =
        checked ? win.at(addr, l)
                : resolveAccess(w, in, l, addr, in.space, size * n, false, kp);
    if (!p)
      return;
    if (d.kind != Operand::Vec) {
      setReg(w, d, l, loadBits(p, size, sext, in.ty));
      continue;
    }
    // Vector accesses are aligned to their whole size; elements follow.
    for (unsigned i = 0; i < n; ++i)
      if (d.vec[i] >= 0)
        w.r(d.vec[i], l) = loadBits(p + i * size, size, sext, in.ty);
  }
}

/// st: in.op 1.
void stOp(WarpState &w, const Instr &in, uint32_t mask) {
  const Operand &a = in.ops[0], &s = in.ops[1];
  unsigned size = tySize(in.ty);
  unsigned n = s.kind == Operand::Vec ? s.nvec : 1;
  LaneAddress address(w, a);
  if (in.space != Space::Param && in.space != Space::Local)
    countAccess(w, in, mask, address, size * n, true);
  WarpWindow win;
  bool checked = warpWindow(w, in, mask, address, size * n, true, false, win);
  FOR_LANES(mask, l) {
    uint64_t addr = address[l];
    uint8_t *p = checked ? win.at(addr, l)
                         : resolveAccess(w, in, l, addr, in.space, size * n,
                                         true, false);
    if (!p)
      return;
    for (unsigned i = 0; i < n; ++i)
      storeBits(p + i * size, size,
                s.kind == Operand::Vec ? w.vecElement(s, i, l) : w.get(s, l));
  }
}

enum AtomOp : uint8_t {
  AAdd,
  AMin,
  AMax,
  AInc,
  ADec,
  AAnd,
  AOr,
  AXor,
  AExch,
  ACas
};

template <class T> T atomicApply(AtomOp op, T old, T b) {
  switch (op) {
  case AAdd:
    return T(old + b);
  case AMin:
    return old < b ? old : b;
  case AMax:
    return old > b ? old : b;
  case AInc:
    return old >= b ? T(0) : T(old + 1);
  case ADec:
    return (old == 0 || old > b) ? b : T(old - 1);
  case AAnd:
  case AOr:
  case AXor:
    if constexpr (std::is_integral_v<T>)
      return op == AAnd ? T(old & b) : op == AOr ? T(old | b) : T(old ^ b);
    return b;
  default:
    return b; // exch
  }
}

/// Atomic read-modify-write on host memory through a CAS loop on the
/// storage type (so every op and float type is atomic across host threads).
template <class T, class S>
S atomicRmw(uint8_t *p, AtomOp op, S bBits, S cBits) {
  S *addr = reinterpret_cast<S *>(p);
  S old = __atomic_load_n(addr, __ATOMIC_RELAXED);
  while (true) {
    S next;
    if (op == ACas) {
      if (old != bBits)
        return old;
      next = cBits;
    } else {
      T o, b;
      std::memcpy(&o, &old, sizeof(T));
      std::memcpy(&b, &bBits, sizeof(T));
      T r = atomicApply<T>(op, o, b);
      std::memcpy(&next, &r, sizeof(T));
    }
    if (__atomic_compare_exchange_n(addr, &old, next, true, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
      return old;
  }
}

template <class T, class S>
void atomOp(WarpState &w, const Instr &in, uint32_t mask) {
  bool isRed = in.mode & 0x80;
  AtomOp op = (AtomOp)(in.mode & 0x7f);
  unsigned base = isRed ? 0 : 1;
  LaneAddress address(w, in.ops[base]);
  countAccess(w, in, mask, address, sizeof(S), true);
  FOR_LANES(mask, l) {
    uint64_t addr = address[l];
    uint8_t *p =
        resolveAccess(w, in, l, addr, in.space, sizeof(S), true, false, true);
    if (!p)
      return;
    S b = (S)w.get(in.ops[base + 1], l);
    S c = op == ACas ? (S)w.get(in.ops[base + 2], l) : 0;
    S old = atomicRmw<T, S>(p, op, b, c);
    if (!isRed)
      setReg(w, in.ops[0], l, (uint64_t)old);
    if (w.counters && in.space != Space::Shared)
      w.counters->globalBytesStored += sizeof(S);
  }
}

bool selectAtom(Instr &in, DecodeCtx &c, std::string &why, bool red) {
  static const std::pair<const char *, AtomOp> ops[] = {
      {".add", AAdd},   {".min", AMin}, {".max", AMax}, {".inc", AInc},
      {".dec", ADec},   {".and", AAnd}, {".or", AOr},   {".xor", AXor},
      {".exch", AExch}, {".cas", ACas}};
  int op = -1;
  for (auto &o : ops)
    if (c.take(o.first))
      op = o.second;
  if (op < 0) {
    why = "atomic operation missing";
    return false;
  }
  if (in.space != Space::Generic && in.space != Space::Global &&
      in.space != Space::Shared) {
    why = "atomics are global/shared/generic only";
    return false;
  }
  in.mode = (uint8_t)(op | (red ? 0x80 : 0));
  bool bits =
      op == AAnd || op == AOr || op == AXor || op == AExch || op == ACas;
  switch (in.ty) {
  case Ty::U32:
  case Ty::B32:
    in.exec = atomOp<uint32_t, uint32_t>;
    break;
  case Ty::S32:
    in.exec = atomOp<int32_t, uint32_t>;
    break;
  case Ty::U64:
  case Ty::B64:
    in.exec = atomOp<uint64_t, uint64_t>;
    break;
  case Ty::S64:
    in.exec = atomOp<int64_t, uint64_t>;
    break;
  case Ty::F32:
    if (op != AAdd && !bits) {
      why = "f32 atomics are add/exch only";
      return false;
    }
    in.exec = op == AAdd ? atomOp<float, uint32_t> : atomOp<uint32_t, uint32_t>;
    break;
  case Ty::F64:
    if (op != AAdd) {
      why = "f64 atomics are add only";
      return false;
    }
    in.exec = atomOp<double, uint64_t>;
    break;
  default:
    why = std::string("atomics on .") + tyName(in.ty) + " are not implemented";
    return false;
  }
  return true;
}

/// cvta[.to].space: between a state-space address and a generic one.
void cvtaOp(WarpState &w, const Instr &in, uint32_t mask) {
  uint64_t base = in.space == Space::Shared  ? w.launch->mem->sharedWindow()
                  : in.space == Space::Local ? w.launch->mem->localWindow()
                                             : 0;
  bool to = in.mode;
  FOR_LANES(mask, l) {
    uint64_t a = w.get(in.ops[1], l);
    uint64_t r = to ? a - base : a + base;
    if (to && base)
      r &= 0xffffffffull;
    setReg(w, in.ops[0], l, truncBits(r, in.ty));
  }
}

void isspacepOp(WarpState &w, const Instr &in, uint32_t mask) {
  DeviceMemory &m = *w.launch->mem;
  FOR_LANES(mask, l) {
    uint64_t a = w.get(in.ops[1], l);
    bool sh = a - m.sharedWindow() < (1ull << 32);
    bool lo = a - m.localWindow() < (1ull << 32);
    bool r = in.space == Space::Shared  ? sh
             : in.space == Space::Local ? lo
                                        : !sh && !lo;
    setReg(w, in.ops[0], l, r);
  }
}

void nopOp(WarpState &, const Instr &, uint32_t) {}

bool selectLdSt(Instr &in, DecodeCtx &, std::string &why, bool store) {
  in.op = store;
  if (in.ty == Ty::None || in.ty == Ty::Pred || in.ty == Ty::B128) {
    why = "load/store type not implemented";
    return false;
  }
  const Operand &addr = in.ops[store ? 0 : 1];
  const Operand &val = in.ops[store ? 1 : 0];
  if (in.nops != 2 || addr.kind != Operand::Addr) {
    why = "expected a value and an [address]";
    return false;
  }
  if ((val.kind == Operand::Vec) != (in.vec > 1) ||
      (in.vec > 1 && val.nvec != in.vec)) {
    why = "vector width and operand disagree";
    return false;
  }
  if (store && in.space == Space::Const) {
    why = "store to .const";
    return false;
  }
  in.exec = store ? stOp : ldOp;
  return true;
}

} // namespace

void registerMemoryOps(SelectorMap &s) {
  s["ld"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectLdSt(in, c, why, false);
  };
  s["ldu"] = s["ld"];
  s["st"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectLdSt(in, c, why, true);
  };
  s["atom"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectAtom(in, c, why, false);
  };
  s["red"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectAtom(in, c, why, true);
  };
  s["cvta"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    in.mode = c.to;
    if (in.space == Space::Param || in.space == Space::Generic) {
      why = "cvta of this state space is not implemented";
      return false;
    }
    in.exec = cvtaOp;
    return true;
  };
  s["isspacep"] = [](Instr &in, DecodeCtx &, std::string &) {
    in.exec = isspacepOp;
    return true;
  };
  for (const char *n :
       {"prefetch", "prefetchu", "membar", "fence", "nanosleep", "pmevent"})
    s[n] = [](Instr &in, DecodeCtx &c, std::string &) {
      c.words.clear(); // .L1/.L2, .proxy kinds: no caches to model
      in.exec = nopOp;
      return true;
    };
}

} // namespace gptc::emu
