//===- ExecWarp.cpp - Warp-synchronous instructions -----------------------===//
//
// shfl.sync, vote.sync, redux.sync, activemask and bar.warp.sync with the
// member-mask rules a GPU (and compute-sanitizer's synccheck) enforce: the
// executing lane must be in the mask, and every live lane of the mask must
// execute the same instruction together; otherwise the launch fails.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <cuda.h>

namespace gptc::emu {

namespace {

/// Checks the member mask of a warp-synchronous instruction; false after
/// recording a fault.
bool checkMembers(WarpState &w, const Instr &in, uint32_t mask,
                  uint32_t members) {
  unsigned first = __builtin_ctz(mask);
  if (mask & ~members) {
    w.fault(
        CUDA_ERROR_ILLEGAL_INSTRUCTION, in, __builtin_ctz(mask & ~members),
        "warp-synchronous instruction executed by a lane outside its "
        "member mask 0x" +
            [&] {
              char b[16];
              std::snprintf(b, sizeof b, "%08x", members);
              return std::string(b);
            }(),
        0, false);
    return false;
  }
  uint32_t missing = members & w.live & ~mask;
  if (missing) {
    (void)first;
    w.fault(CUDA_ERROR_ILLEGAL_INSTRUCTION, in, __builtin_ctz(missing),
            "lane of the member mask did not reach the warp-synchronous "
            "instruction together with the others (divergent warp)",
            0, false);
    return false;
  }
  return true;
}

/// shfl.sync.mode.b32 d[|p], a, b, c, membermask  (in.mode: 0 up, 1 down,
/// 2 bfly, 3 idx; in.op: 1 when p is present).
void shflOp(WarpState &w, const Instr &in, uint32_t mask) {
  unsigned base = in.op ? 2 : 1;
  uint32_t members = (uint32_t)w.get(in.ops[base + 3], __builtin_ctz(mask));
  if (!checkMembers(w, in, mask, members))
    return;
  uint64_t src[32];
  FOR_LANES(w.live, l) src[l] = w.get(in.ops[base], l);
  uint64_t out[32];
  bool pv[32];
  FOR_LANES(mask, l) {
    int lane = (int)l;
    int bval = (int)(w.get(in.ops[base + 1], l) & 31);
    uint32_t c = (uint32_t)w.get(in.ops[base + 2], l);
    int cval = c & 31, seg = (c >> 8) & 31;
    int maxLane = (lane & seg) | (cval & ~seg), minLane = lane & seg;
    int j;
    bool p;
    switch (in.mode) {
    case 0:
      j = lane - bval;
      p = j >= maxLane;
      break;
    case 1:
      j = lane + bval;
      p = j <= maxLane;
      break;
    case 2:
      j = lane ^ bval;
      p = j <= maxLane;
      break;
    default:
      j = minLane | (bval & ~seg);
      p = j <= maxLane;
      break;
    }
    if (!p)
      j = lane;
    // A source lane outside the member mask gives an undefined value on a
    // GPU; here: its register, if the lane exists.
    out[l] = (w.live >> j) & 1 ? src[j] : src[l];
    pv[l] = p;
  }
  FOR_LANES(mask, l) {
    setReg(w, in.ops[0], l, out[l] & 0xffffffffu);
    if (in.op)
      setReg(w, in.ops[1], l, pv[l]);
  }
}

/// vote.sync.{all,any,uni}.pred / .ballot.b32 d, {!}a, membermask.
void voteOp(WarpState &w, const Instr &in, uint32_t mask) {
  uint32_t members = (uint32_t)w.get(in.ops[2], __builtin_ctz(mask));
  if (!checkMembers(w, in, mask, members))
    return;
  uint32_t ballot = 0;
  FOR_LANES(mask, l) ballot |= (uint32_t)getPred(w, in.ops[1], l) << l;
  uint64_t r;
  switch (in.mode) {
  case 0:
    r = ballot == mask;
    break;
  case 1:
    r = ballot != 0;
    break;
  case 2:
    r = ballot == 0 || ballot == mask;
    break;
  default:
    r = ballot;
    break;
  }
  FOR_LANES(mask, l) setReg(w, in.ops[0], l, r);
}

/// redux.sync.op.type d, a, membermask (in.mode: 0 add 1 min 2 max 3 and
/// 4 or 5 xor; in.op: 1 signed).
void reduxOp(WarpState &w, const Instr &in, uint32_t mask) {
  uint32_t members = (uint32_t)w.get(in.ops[2], __builtin_ctz(mask));
  if (!checkMembers(w, in, mask, members))
    return;
  bool first = true;
  int64_t acc = 0;
  FOR_LANES(mask, l) {
    uint32_t u = (uint32_t)w.get(in.ops[1], l);
    int64_t v = in.op ? (int64_t)(int32_t)u : (int64_t)u;
    if (first) {
      acc = v;
      first = false;
      continue;
    }
    switch (in.mode) {
    case 0:
      acc += v;
      break;
    case 1:
      acc = std::min(acc, v);
      break;
    case 2:
      acc = std::max(acc, v);
      break;
    case 3:
      acc &= v;
      break;
    case 4:
      acc |= v;
      break;
    default:
      acc ^= v;
      break;
    }
  }
  FOR_LANES(mask, l) setReg(w, in.ops[0], l, (uint32_t)acc);
}

void activemaskOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) setReg(w, in.ops[0], l, mask);
}

void warpSyncOp(WarpState &w, const Instr &in, uint32_t mask) {
  uint32_t members = (uint32_t)w.get(in.ops[0], __builtin_ctz(mask));
  checkMembers(w, in, mask, members);
}

} // namespace

void registerWarpOps(SelectorMap &s) {
  s["shfl"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    const char *modes[] = {".up", ".down", ".bfly", ".idx"};
    int mode = c.takeOneOf(modes, 4);
    if (mode < 0 || in.ty != Ty::B32 || (in.nops != 5 && in.nops != 6)) {
      why = "expected shfl.sync.{up,down,bfly,idx}.b32 with a member mask";
      return false;
    }
    in.mode = (uint8_t)mode;
    in.op = in.nops == 6;
    in.memberOp = (int8_t)(in.nops - 1);
    in.exec = shflOp;
    in.ctl = Ctl::WarpSync;
    return true;
  };
  s["vote"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    const char *modes[] = {".all", ".any", ".uni", ".ballot"};
    int mode = c.takeOneOf(modes, 4);
    if (mode < 0 || in.nops != 3) {
      why = "expected vote.sync.{all,any,uni,ballot} with a member mask";
      return false;
    }
    in.mode = (uint8_t)mode;
    in.memberOp = 2;
    in.exec = voteOp;
    in.ctl = Ctl::WarpSync;
    return true;
  };
  s["redux"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    const char *modes[] = {".add", ".min", ".max", ".and", ".or", ".xor"};
    int mode = c.takeOneOf(modes, 6);
    if (mode < 0 || tySize(in.ty) != 4 || tyIsFloat(in.ty)) {
      why = "expected redux.sync.op.{u32,s32,b32}";
      return false;
    }
    in.mode = (uint8_t)mode;
    in.op = tyIsSigned(in.ty);
    in.memberOp = 2;
    in.exec = reduxOp;
    in.ctl = Ctl::WarpSync;
    return true;
  };
  s["activemask"] = [](Instr &in, DecodeCtx &, std::string &) {
    in.exec = activemaskOp;
    return true;
  };
}

/// bar.warp.sync membermask (registered by the control family with `bar`).
ExecFn warpSyncHandler() { return warpSyncOp; }

} // namespace gptc::emu
