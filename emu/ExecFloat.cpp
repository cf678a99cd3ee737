//===- ExecFloat.cpp - Floating-point, compare and select instructions ----===//
//
// f32/f64 arithmetic with PTX's rounding modifiers (.rn/.rz/.rm/.rp set the
// host rounding mode around the lane loop), .ftz and .sat; f16/bf16 and
// their packed x2 forms computed in f64 and rounded once; the .approx
// functions (within the PTX ISA bounds: the host's correctly rounded or
// libm results); setp/set/selp/slct/testp/copysign for every type.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <cfenv>

namespace gptc::emu {

bool selectIntegerForm(const std::string &op, Instr &in, DecodeCtx &c,
                       std::string &why);

namespace {

/// Sets the host rounding mode for a directed PTX rounding modifier.
struct RoundingScope {
  int saved = -1;
  explicit RoundingScope(Rnd r) {
    int mode = r == Rnd::Rz   ? FE_TOWARDZERO
               : r == Rnd::Rm ? FE_DOWNWARD
               : r == Rnd::Rp ? FE_UPWARD
                              : -1;
    if (mode >= 0) {
      saved = std::fegetround();
      std::fesetround(mode);
    }
  }
  ~RoundingScope() {
    if (saved >= 0)
      std::fesetround(saved);
  }
};

enum FOp : uint8_t {
  FAdd,
  FSub,
  FMul,
  FDiv,
  FMin,
  FMax,
  FFma,
  FAbs,
  FNeg,
  FSqrt,
  FRsqrt,
  FRcp,
  FEx2,
  FLg2,
  FSin,
  FCos,
  FTanh,
  FCopysign
};

template <class T> T fmin_(T a, T b, bool nan) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan || (std::isnan(a) && std::isnan(b)))
      return NAN;
    return std::isnan(a) ? b : a;
  }
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T> T fmax_(T a, T b, bool nan) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan || (std::isnan(a) && std::isnan(b)))
      return NAN;
    return std::isnan(a) ? b : a;
  }
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// One float operation on values of type T (float or double).
template <class T, FOp Op> T apply(T a, T b, T c, const Instr &in) {
  switch (Op) {
  case FAdd:
    return a + b;
  case FSub:
    return a - b;
  case FMul:
    return a * b;
  case FDiv:
    return a / b;
  case FMin:
    return fmin_(a, b, in.nanMode);
  case FMax:
    return fmax_(a, b, in.nanMode);
  case FFma:
    return std::fma(a, b, c);
  case FAbs:
    return std::fabs(a);
  case FNeg:
    return -a;
  case FSqrt:
    return std::sqrt(a);
  case FRsqrt:
    return T(1) / std::sqrt(a);
  case FRcp:
    return T(1) / a;
  case FEx2:
    return std::exp2(a);
  case FLg2:
    return std::log2(a);
  case FSin:
    return std::sin(a);
  case FCos:
    return std::cos(a);
  case FTanh:
    return std::tanh(a);
  case FCopysign:
    return std::copysign(b, a);
  }
  return a;
}

constexpr int arity(FOp op) {
  return op == FFma ? 3
         : (op == FAdd || op == FSub || op == FMul || op == FDiv ||
            op == FMin || op == FMax || op == FCopysign)
             ? 2
             : 1;
}

template <class T> T saturate(T v) {
  if (std::isnan(v))
    return 0;
  return v <= 0 ? T(0) : v > 1 ? T(1) : v; // -0 saturates to +0
}

template <FOp Op> void f32op(WarpState &w, const Instr &in, uint32_t mask) {
  RoundingScope rs(in.rnd);
  LaneOperand x(w, in.ops[1], mask);
  LaneOperand y(w, in.ops[arity(Op) > 1 ? 2 : 1], mask);
  LaneOperand z(w, in.ops[arity(Op) > 2 ? 3 : 1], mask);
  forEachLane(mask, [&](unsigned l) {
    float a = fromBits<float>(x[l]);
    float b = arity(Op) > 1 ? fromBits<float>(y[l]) : 0.f;
    float c = arity(Op) > 2 ? fromBits<float>(z[l]) : 0.f;
    if (in.ftz) {
      a = flushF32(a);
      b = flushF32(b);
      c = flushF32(c);
    }
    float r = apply<float, Op>(a, b, c, in);
    if (in.sat)
      r = saturate(r);
    if (in.ftz)
      r = flushF32(r);
    uint64_t bits = std::isnan(r) && Op != FAbs && Op != FNeg && Op != FCopysign
                        ? 0x7fffffffu
                        : toBits<float>(r);
    setReg(w, in.ops[0], l, bits);
  });
}

template <FOp Op> void f64op(WarpState &w, const Instr &in, uint32_t mask) {
  RoundingScope rs(in.rnd);
  FOR_LANES(mask, l) {
    double a = fromBits<double>(w.get(in.ops[1], l));
    double b = arity(Op) > 1 ? fromBits<double>(w.get(in.ops[2], l)) : 0.;
    double c = arity(Op) > 2 ? fromBits<double>(w.get(in.ops[3], l)) : 0.;
    double r = apply<double, Op>(a, b, c, in);
    if (in.sat)
      r = saturate(r);
    setReg(w, in.ops[0], l, toBits<double>(r));
  }
}

/// f16/bf16 (and packed x2): unpack, compute in f64, round once (.rn).
template <FOp Op, bool Bf16, int N>
void halfop(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t a = w.get(in.ops[1], l);
    uint64_t b = arity(Op) > 1 ? w.get(in.ops[2], l) : 0;
    uint64_t c = arity(Op) > 2 ? w.get(in.ops[3], l) : 0;
    uint64_t r = 0;
    for (int i = 0; i < N; ++i) {
      auto un = [&](uint64_t v) {
        uint16_t h = (uint16_t)(v >> (16 * i));
        return (double)(Bf16 ? bf16ToFloat(h) : halfToFloat(h));
      };
      double x = apply<double, Op>(un(a), un(b), un(c), in);
      if (in.sat)
        x = saturate(x);
      uint64_t h = Bf16 ? floatToBf16(x, Rnd::Rn) : floatToHalf(x, Rnd::Rn);
      if (Op == FAbs || Op == FNeg) // sign-bit operations, NaN payload kept
        h = Op == FAbs ? ((a >> (16 * i)) & 0x7fff)
                       : (((a >> (16 * i)) & 0xffff) ^ 0x8000);
      r |= h << (16 * i);
    }
    setReg(w, in.ops[0], l, r);
  }
}

template <FOp Op> ExecFn pickFloat(Ty t) {
  switch (t) {
  case Ty::F32:
    return f32op<Op>;
  case Ty::F64:
    return f64op<Op>;
  case Ty::F16:
    return halfop<Op, false, 1>;
  case Ty::F16x2:
    return halfop<Op, false, 2>;
  case Ty::BF16:
    return halfop<Op, true, 1>;
  case Ty::BF16x2:
    return halfop<Op, true, 2>;
  default:
    return nullptr;
  }
}

template <FOp Op>
bool selectFloat(Instr &in, DecodeCtx &c, std::string &why, const char *name) {
  if (!tyIsFloat(in.ty)) {
    if (Op == FAdd || Op == FSub || Op == FMul || Op == FDiv || Op == FMin ||
        Op == FMax || Op == FAbs || Op == FNeg || Op == FFma)
      return selectIntegerForm(name, in, c, why);
    why = std::string("type .") + tyName(in.ty) + " is not implemented";
    return false;
  }
  bool half = in.ty != Ty::F32 && in.ty != Ty::F64;
  if (half && in.rnd != Rnd::None && in.rnd != Rnd::Rn) {
    why = "f16/bf16 arithmetic supports .rn only";
    return false;
  }
  if (in.rnd == Rnd::Rni || in.rnd == Rnd::Rzi || in.rnd == Rnd::Rmi ||
      in.rnd == Rnd::Rpi || in.rnd == Rnd::Rna) {
    why = "integer rounding modifier on a float operation";
    return false;
  }
  in.exec = pickFloat<Op>(in.ty);
  return in.exec != nullptr;
}

#define FLOAT_OP(name, Op)                                                     \
  s[name] = [](Instr &in, DecodeCtx &c, std::string &why) {                    \
    return selectFloat<Op>(in, c, why, name);                                  \
  }

/// Compares two values of type `t` given as bits.
bool compare(Cmp cmp, Ty t, uint64_t x, uint64_t y) {
  if (tyIsFloat(t)) {
    double a, b;
    if (t == Ty::F32) {
      a = fromBits<float>(x);
      b = fromBits<float>(y);
    } else if (t == Ty::F64) {
      a = fromBits<double>(x);
      b = fromBits<double>(y);
    } else if (t == Ty::BF16) {
      a = bf16ToFloat((uint16_t)x);
      b = bf16ToFloat((uint16_t)y);
    } else {
      a = halfToFloat((uint16_t)x);
      b = halfToFloat((uint16_t)y);
    }
    bool un = std::isnan(a) || std::isnan(b);
    switch (cmp) {
    case Cmp::Eq:
      return !un && a == b;
    case Cmp::Ne:
      return !un && a != b;
    case Cmp::Lt:
      return !un && a < b;
    case Cmp::Le:
      return !un && a <= b;
    case Cmp::Gt:
      return !un && a > b;
    case Cmp::Ge:
      return !un && a >= b;
    case Cmp::Equ:
      return un || a == b;
    case Cmp::Neu:
      return un || a != b;
    case Cmp::Ltu:
      return un || a < b;
    case Cmp::Leu:
      return un || a <= b;
    case Cmp::Gtu:
      return un || a > b;
    case Cmp::Geu:
      return un || a >= b;
    case Cmp::Num:
      return !un;
    case Cmp::Nan:
      return un;
    default:
      return false;
    }
  }
  int64_t sa = extendBits(x, t), sb = extendBits(y, t);
  uint64_t ua = truncBits(x, t), ub = truncBits(y, t);
  bool s = tyIsSigned(t);
  switch (cmp) {
  case Cmp::Eq:
    return ua == ub;
  case Cmp::Ne:
    return ua != ub;
  case Cmp::Lt:
    return s ? sa < sb : ua < ub;
  case Cmp::Le:
    return s ? sa <= sb : ua <= ub;
  case Cmp::Gt:
    return s ? sa > sb : ua > ub;
  case Cmp::Ge:
    return s ? sa >= sb : ua >= ub;
  case Cmp::Lo:
    return ua < ub;
  case Cmp::Ls:
    return ua <= ub;
  case Cmp::Hi:
    return ua > ub;
  case Cmp::Hs:
    return ua >= ub;
  default:
    return false;
  }
}

bool combine(BoolOp op, bool a, bool c) {
  switch (op) {
  case BoolOp::And:
    return a && c;
  case BoolOp::Or:
    return a || c;
  case BoolOp::Xor:
    return a != c;
  default:
    return a;
  }
}

/// setp.cmp[.bool].T p[|q], a, b[, c]; in.mode = 1 when q is present.
void setpOp(WarpState &w, const Instr &in, uint32_t mask) {
  unsigned a = in.mode ? 2 : 1;
  bool hasC = in.boolOp != BoolOp::None;
  LaneOperand x(w, in.ops[a], mask), y(w, in.ops[a + 1], mask);
  forEachLane(mask, [&](unsigned l) {
    bool r = compare(in.cmp, in.ty, x[l], y[l]);
    bool c = hasC ? getPred(w, in.ops[a + 2], l) : false;
    setReg(w, in.ops[0], l, combine(in.boolOp, r, c));
    if (in.mode)
      setReg(w, in.ops[1], l, combine(in.boolOp, !r, c));
  });
}
/// set.cmp[.bool].D.T d, a, b[, c]: all ones / 1.0f, or zero.
void setOp(WarpState &w, const Instr &in, uint32_t mask) {
  bool hasC = in.boolOp != BoolOp::None;
  FOR_LANES(mask, l) {
    bool r = compare(in.cmp, in.ty2, w.get(in.ops[1], l), w.get(in.ops[2], l));
    if (hasC)
      r = combine(in.boolOp, r, getPred(w, in.ops[3], l));
    uint64_t v = in.ty == Ty::F32 ? (r ? 0x3f800000u : 0) : (r ? ~0ull : 0);
    setReg(w, in.ops[0], l, truncBits(v, in.ty));
  }
}
void selpOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    bool c = getPred(w, in.ops[3], l);
    setReg(w, in.ops[0], l, w.get(in.ops[c ? 1 : 2], l));
  }
}
void slctOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t c = w.get(in.ops[3], l);
    bool ge = in.ty2 == Ty::F32 ? !(fromBits<float>(c) < 0.f) : (int32_t)c >= 0;
    setReg(w, in.ops[0], l, w.get(in.ops[ge ? 1 : 2], l));
  }
}
template <class T> void testpOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    T v = fromBits<T>(w.get(in.ops[1], l));
    int c = std::fpclassify(v);
    bool r;
    switch (in.mode) {
    case 0:
      r = std::isfinite(v);
      break;
    case 1:
      r = std::isinf(v);
      break;
    case 2:
      r = !std::isnan(v);
      break;
    case 3:
      r = std::isnan(v);
      break;
    case 4:
      r = c == FP_NORMAL;
      break;
    default:
      r = c == FP_SUBNORMAL;
      break;
    }
    setReg(w, in.ops[0], l, r);
  }
}

} // namespace

void registerFloatOps(SelectorMap &s) {
  FLOAT_OP("add", FAdd);
  FLOAT_OP("sub", FSub);
  FLOAT_OP("mul", FMul);
  FLOAT_OP("div", FDiv);
  FLOAT_OP("min", FMin);
  FLOAT_OP("max", FMax);
  FLOAT_OP("fma", FFma);
  FLOAT_OP("mad", FFma);
  FLOAT_OP("abs", FAbs);
  FLOAT_OP("neg", FNeg);
  FLOAT_OP("sqrt", FSqrt);
  FLOAT_OP("rsqrt", FRsqrt);
  FLOAT_OP("rcp", FRcp);
  FLOAT_OP("ex2", FEx2);
  FLOAT_OP("lg2", FLg2);
  FLOAT_OP("sin", FSin);
  FLOAT_OP("cos", FCos);
  FLOAT_OP("tanh", FTanh);
  FLOAT_OP("copysign", FCopysign);
  s["setp"] = [](Instr &in, DecodeCtx &, std::string &why) {
    if (in.cmp == Cmp::None) {
      why = "setp without a comparison";
      return false;
    }
    unsigned want = 3 + (in.boolOp != BoolOp::None);
    if (in.nops == want + 1)
      in.mode = 1;
    else if (in.nops != want) {
      why = "wrong number of operands";
      return false;
    }
    in.exec = setpOp;
    return true;
  };
  s["set"] = [](Instr &in, DecodeCtx &, std::string &why) {
    if (in.cmp == Cmp::None || in.ty2 == Ty::None) {
      why = "set needs a comparison, a destination and a source type";
      return false;
    }
    in.exec = setOp;
    return true;
  };
  s["selp"] = [](Instr &in, DecodeCtx &, std::string &) {
    in.exec = selpOp;
    return true;
  };
  s["slct"] = [](Instr &in, DecodeCtx &, std::string &) {
    in.exec = slctOp;
    return true;
  };
  s["testp"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    const char *modes[] = {".finite",     ".infinite", ".number",
                           ".notanumber", ".normal",   ".subnormal"};
    int mode = c.takeOneOf(modes, 6);
    if (mode < 0 || (in.ty != Ty::F32 && in.ty != Ty::F64)) {
      why = "testp needs a class and .f32/.f64";
      return false;
    }
    in.mode = (uint8_t)mode;
    in.exec = in.ty == Ty::F32 ? testpOp<float> : testpOp<double>;
    return true;
  };
}

} // namespace gptc::emu
