//===- ExecConvert.cpp - cvt and mov --------------------------------------===//
//
// cvt between every integer and float type with PTX's rounding, saturation
// and flush-to-zero rules (float to integer saturates and maps NaN to 0),
// the packed cvt.rn[.relu].{bf16x2,f16x2}.f32, and mov with its vector
// pack/unpack forms.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <cfenv>
#include <limits>

namespace gptc::emu {

namespace {

/// The value of float bits of type t as a double (exact).
double floatValue(uint64_t bits, Ty t) {
  switch (t) {
  case Ty::F32:
    return fromBits<float>(bits);
  case Ty::F64:
    return fromBits<double>(bits);
  case Ty::BF16:
    return bf16ToFloat((uint16_t)bits);
  default:
    return halfToFloat((uint16_t)bits);
  }
}

/// Rounds a double to an integral value with an integer rounding modifier.
double roundIntegral(double v, Rnd r) {
  switch (r) {
  case Rnd::Rzi:
    return std::trunc(v);
  case Rnd::Rmi:
    return std::floor(v);
  case Rnd::Rpi:
    return std::ceil(v);
  default:
    return std::nearbyint(v); // .rni: ties to even (default env)
  }
}

/// Double (or exact integer) to float bits of `t` with rounding `r`.
uint64_t toFloatBits(double v, Ty t, Rnd r, bool ftz) {
  switch (t) {
  case Ty::F64:
    return toBits<double>(v);
  case Ty::F32: {
    float f = doubleToFloat(v, r);
    return toBits<float>(ftz ? flushF32(f) : f);
  }
  case Ty::BF16:
    return floatToBf16(v, r == Rnd::None ? Rnd::Rn : r);
  default:
    return floatToHalf(v, r == Rnd::None ? Rnd::Rn : r);
  }
}

/// Saturates an integer value to the range of `t`.
int64_t clampInt(__int128 v, Ty t) {
  unsigned bits = 8 * tySize(t);
  __int128 lo, hi;
  if (tyIsSigned(t)) {
    lo = -((__int128)1 << (bits - 1));
    hi = ((__int128)1 << (bits - 1)) - 1;
  } else {
    lo = 0;
    hi = ((__int128)1 << bits) - 1;
  }
  return (int64_t)(v < lo ? lo : v > hi ? hi : v);
}

/// .satfinite: an infinite result becomes the largest finite value of its
/// sign (NaN stays NaN).
uint64_t satFinite(uint64_t bits, Ty t) {
  uint64_t sign, expMask, mant;
  switch (t) {
  case Ty::F32:
    sign = 1ull << 31;
    expMask = 0xffull << 23;
    mant = 23;
    break;
  case Ty::BF16:
    sign = 1ull << 15;
    expMask = 0xffull << 7;
    mant = 7;
    break;
  case Ty::F16:
    sign = 1ull << 15;
    expMask = 0x1full << 10;
    mant = 10;
    break;
  default:
    return bits;
  }
  if ((bits & ~sign) != expMask)
    return bits;
  return (bits & sign) | (expMask - (1ull << mant)) | ((1ull << mant) - 1);
}

void cvtOp(WarpState &w, const Instr &in, uint32_t mask) {
  Ty dt = in.ty, st = in.ty2;
  bool dFloat = tyIsFloat(dt), sFloat = tyIsFloat(st);
  if (!dFloat && !sFloat && !in.sat && in.ops[0].kind == Operand::Reg) {
    // Integer widening and narrowing (address arithmetic's cvt.u64.u32).
    LaneOperand x(w, in.ops[1], mask);
    uint64_t *dst = &w.regs[in.ops[0].reg * 32];
    forEachLane(mask, [&](unsigned l) {
      dst[l] = truncBits((uint64_t)extendBits(x[l], st), dt);
    });
    return;
  }
  FOR_LANES(mask, l) {
    uint64_t s = w.get(in.ops[1], l), r;
    if (!dFloat && !sFloat) {
      int64_t v = extendBits(s, st);
      __int128 wide = tyIsSigned(st) ? (__int128)v : (__int128)(uint64_t)v;
      r = truncBits((uint64_t)(in.sat ? clampInt(wide, dt) : v), dt);
    } else if (!dFloat) {
      double v = floatValue(s, st);
      if (in.ftz && st == Ty::F32)
        v = flushF32((float)v);
      if (std::isnan(v)) {
        r = 0;
      } else {
        v = roundIntegral(v, in.rnd);
        double lo = tyIsSigned(dt) ? -std::ldexp(1.0, 8 * tySize(dt) - 1) : 0;
        double hi = tyIsSigned(dt) ? std::ldexp(1.0, 8 * tySize(dt) - 1)
                                   : std::ldexp(1.0, 8 * tySize(dt));
        __int128 iv = v <= lo   ? (__int128)lo
                      : v >= hi ? (__int128)hi - 1
                                : (__int128)v;
        r = truncBits((uint64_t)(int64_t)iv, dt);
      }
    } else if (!sFloat) {
      int64_t v = extendBits(s, st);
      double d;
      if (tyIsSigned(st) || v >= 0) {
        // Beyond 2^53 the f64 step would round twice; f32 from 64-bit ints
        // rounds in the host's mode once.
        if (dt == Ty::F32 && in.rnd != Rnd::Rn && in.rnd != Rnd::None) {
          int mode = in.rnd == Rnd::Rz   ? FE_TOWARDZERO
                     : in.rnd == Rnd::Rm ? FE_DOWNWARD
                                         : FE_UPWARD;
          int saved = std::fegetround();
          std::fesetround(mode);
          volatile float f = tyIsSigned(st) ? (float)v : (float)(uint64_t)v;
          std::fesetround(saved);
          r = toBits<float>(f);
          setReg(w, in.ops[0], l, r);
          continue;
        }
        d = tyIsSigned(st) ? (double)v : (double)(uint64_t)v;
      } else {
        d = (double)(uint64_t)v;
      }
      if (dt == Ty::F32 && (in.rnd == Rnd::Rn || in.rnd == Rnd::None))
        r = toBits<float>(tyIsSigned(st) ? (float)v : (float)(uint64_t)v);
      else
        r = toFloatBits(d, dt, in.rnd, false);
    } else {
      double v = floatValue(s, st);
      if (in.ftz && st == Ty::F32)
        v = flushF32((float)v);
      if (in.rnd == Rnd::Rni || in.rnd == Rnd::Rzi || in.rnd == Rnd::Rmi ||
          in.rnd == Rnd::Rpi)
        v = roundIntegral(v, in.rnd);
      if ((in.mode & 1) && v < 0) // .relu
        v = 0;
      if (in.sat)
        v = std::isnan(v) || v <= 0 ? 0 : v > 1 ? 1 : v; // -0 -> +0
      if (std::isnan(v) && dt == Ty::F32)
        r = 0x7fffffff;
      else
        r = toFloatBits(v, dt, in.rnd, in.ftz);
      if (in.mode & 2)
        r = satFinite(r, dt);
    }
    setReg(w, in.ops[0], l, r);
  }
}

/// cvt.rn[.relu].{bf16x2,f16x2}.f32 d, a, b: a to the upper half.
template <bool Bf16>
void cvtPackOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t halves[2];
    for (int i = 0; i < 2; ++i) {
      double v = fromBits<float>(w.get(in.ops[1 + i], l));
      if ((in.mode & 1) && v < 0)
        v = 0;
      halves[i] = Bf16 ? floatToBf16(v, in.rnd) : floatToHalf(v, in.rnd);
      if (in.mode & 2)
        halves[i] = satFinite(halves[i], Bf16 ? Ty::BF16 : Ty::F16);
    }
    setReg(w, in.ops[0], l, (halves[0] << 16) | halves[1]);
  }
}

void movOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l)
  setReg(w, in.ops[0], l, truncBits(w.get(in.ops[1], l), in.ty));
}
void movPredOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) setReg(w, in.ops[0], l, getPred(w, in.ops[1], l));
}
/// mov.bN d, {a, b, ...}: element i at bits [i*N/n, (i+1)*N/n).
void movPackOp(WarpState &w, const Instr &in, uint32_t mask) {
  const Operand &v = in.ops[1];
  unsigned eb = 8 * tySize(in.ty) / v.nvec;
  uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
  FOR_LANES(mask, l) {
    uint64_t r = 0;
    for (unsigned i = 0; i < v.nvec; ++i)
      if (v.vec[i] >= 0 || v.vec[i] == kVecImmediate)
        r |= (w.vecElement(v, i, l) & em) << (eb * i);
    setReg(w, in.ops[0], l, r);
  }
}
void movUnpackOp(WarpState &w, const Instr &in, uint32_t mask) {
  const Operand &v = in.ops[0];
  unsigned eb = 8 * tySize(in.ty) / v.nvec;
  uint64_t em = eb >= 64 ? ~0ull : (1ull << eb) - 1;
  FOR_LANES(mask, l) {
    uint64_t s = w.get(in.ops[1], l);
    for (unsigned i = 0; i < v.nvec; ++i)
      if (v.vec[i] >= 0)
        w.r(v.vec[i], l) = (s >> (eb * i)) & em;
  }
}

bool selectCvt(Instr &in, DecodeCtx &c, std::string &why) {
  if (c.take(".relu"))
    in.mode |= 1;
  if (c.take(".satfinite")) {
    if (!tyIsFloat(in.ty) || !tyIsFloat(in.ty2)) {
      why = ".satfinite is implemented for float-to-float cvt only";
      return false;
    }
    in.mode |= 2;
  }
  if (in.ty == Ty::BF16x2 || in.ty == Ty::F16x2) {
    if (in.ty2 != Ty::F32 || in.nops != 3) {
      why = "packed cvt needs two .f32 sources";
      return false;
    }
    if (in.rnd == Rnd::None)
      in.rnd = Rnd::Rn;
    in.exec = in.ty == Ty::BF16x2 ? cvtPackOp<true> : cvtPackOp<false>;
    return true;
  }
  if (in.ty == Ty::None || in.ty2 == Ty::None || in.ty == Ty::Pred ||
      in.ty2 == Ty::Pred || in.ty2 == Ty::BF16x2 || in.ty2 == Ty::F16x2) {
    why = "cvt needs scalar destination and source types";
    return false;
  }
  bool dF = tyIsFloat(in.ty), sF = tyIsFloat(in.ty2);
  bool intRnd = in.rnd == Rnd::Rni || in.rnd == Rnd::Rzi ||
                in.rnd == Rnd::Rmi || in.rnd == Rnd::Rpi;
  if (sF && !dF && !intRnd) {
    why = "float-to-integer cvt needs .rni/.rzi/.rmi/.rpi";
    return false;
  }
  if (dF && sF && tySize(in.ty) < tySize(in.ty2) && in.rnd == Rnd::None) {
    why = "narrowing float cvt needs a rounding modifier";
    return false;
  }
  in.exec = cvtOp;
  return true;
}

bool selectMov(Instr &in, DecodeCtx &, std::string &why) {
  if (in.nops != 2) {
    why = "mov takes two operands";
    return false;
  }
  if (in.ops[1].kind == Operand::Vec)
    in.exec = movPackOp;
  else if (in.ops[0].kind == Operand::Vec)
    in.exec = movUnpackOp;
  else if (in.ty == Ty::Pred)
    in.exec = movPredOp;
  else
    in.exec = movOp;
  if (in.ty == Ty::B128 || in.ty == Ty::None) {
    why = "mov type not implemented";
    return false;
  }
  return true;
}

} // namespace

void registerConvertOps(SelectorMap &s) {
  s["cvt"] = selectCvt;
  s["mov"] = selectMov;
}

} // namespace gptc::emu
