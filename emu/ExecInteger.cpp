//===- ExecInteger.cpp - Integer, bit and logic instructions --------------===//
//
// add/sub (with .sat and the carry chain), mul/mad (.lo/.hi/.wide), div,
// rem, abs, neg, min, max, the bit operations (and/or/xor/not/cnot, shl,
// shr, shf, popc, clz, brev, bfind, bfe, bfi, prmt), and mov. Handlers are
// instantiated per operand type at decode time.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

#include <limits>
#include <type_traits>

namespace gptc::emu {

namespace {

template <class T> using U = std::make_unsigned_t<T>;
template <class T> inline uint64_t out(T v) { return (uint64_t)(U<T>)v; }

/// d = F(a, b) for every lane.
template <class T, class F>
void binop(WarpState &w, const Instr &in, uint32_t mask) {
  const Operand &d = in.ops[0];
  LaneOperand a(w, in.ops[1], mask), b(w, in.ops[2], mask);
  if (d.kind != Operand::Reg)
    return;
  uint64_t *dst = &w.regs[d.reg * 32];
  forEachLane(mask,
              [&](unsigned l) { dst[l] = out<T>(F::f((T)a[l], (T)b[l], in)); });
}
/// d = F(a) for every lane.
template <class T, class F>
void unop(WarpState &w, const Instr &in, uint32_t mask) {
  const Operand &d = in.ops[0];
  LaneOperand a(w, in.ops[1], mask);
  if (d.kind != Operand::Reg)
    return;
  uint64_t *dst = &w.regs[d.reg * 32];
  forEachLane(mask, [&](unsigned l) { dst[l] = out<T>(F::f((T)a[l], in)); });
}

#define BIN(Name, expr)                                                        \
  struct Name {                                                                \
    template <class T> static T f(T a, T b, const Instr &in) {                 \
      (void)in;                                                                \
      return expr;                                                             \
    }                                                                          \
  };
#define UN(Name, expr)                                                         \
  struct Name {                                                                \
    template <class T> static T f(T a, const Instr &in) {                      \
      (void)in;                                                                \
      return expr;                                                             \
    }                                                                          \
  };

BIN(Add, T(U<T>(a) + U<T>(b)))
BIN(Sub, T(U<T>(a) - U<T>(b)))
BIN(And, T(a &b))
BIN(Or, T(a | b))
BIN(Xor, T(a ^ b))
BIN(Min, a < b ? a : b)
BIN(Max, a > b ? a : b)
BIN(MulLo, T(U<T>(a) * U<T>(b)))
UN(Not, T(~a))
UN(Cnot, T(a == 0))
UN(Neg, T(U<T>(0) - U<T>(a)))
UN(Abs, a < 0 ? T(U<T>(0) - U<T>(a)) : a)
UN(Popc, T(__builtin_popcountll((uint64_t)U<T>(a))))
UN(Mov, a)

struct Div {
  template <class T> static T f(T a, T b, const Instr &) {
    if (b == 0)
      return T(-1);
    if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == T(-1))
      return a;
    return a / b;
  }
};
struct Rem {
  template <class T> static T f(T a, T b, const Instr &) {
    if (b == 0)
      return a;
    if (std::is_signed_v<T> && b == T(-1))
      return 0;
    return a % b;
  }
};
struct AddSat {
  template <class T> static T f(T a, T b, const Instr &) {
    int64_t r = (int64_t)a + (int64_t)b;
    return (T)std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
  }
};
struct SubSat {
  template <class T> static T f(T a, T b, const Instr &) {
    int64_t r = (int64_t)a - (int64_t)b;
    return (T)std::min<int64_t>(std::max<int64_t>(r, INT32_MIN), INT32_MAX);
  }
};
/// Shifts: the amount is an unsigned 32-bit operand, clamped to the width.
struct Shl {
  template <class T> static T f(T a, T b, const Instr &) {
    uint32_t s = (uint32_t)(uint64_t)U<T>(b);
    return s >= 8 * sizeof(T) ? T(0) : T(U<T>(a) << s);
  }
};
struct Shr {
  template <class T> static T f(T a, T b, const Instr &) {
    uint32_t s = (uint32_t)(uint64_t)U<T>(b);
    if (s >= 8 * sizeof(T))
      return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
    return T(a >> s);
  }
};
struct MulHi {
  template <class T> static T f(T a, T b, const Instr &) {
    if constexpr (sizeof(T) == 8) {
      using W =
          std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return T((W(a) * W(b)) >> 64);
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return T((W(a) * W(b)) >> (8 * sizeof(T)));
    }
  }
};

/// The shift amount of `shl/shr` is always read as u32: the handler is
/// chosen on the data type, the amount operand's bits are masked.
template <class T> ExecFn pickBin(const std::string &op, const Instr &in) {
  if (op == "add")
    return in.sat ? binop<T, AddSat> : binop<T, Add>;
  if (op == "sub")
    return in.sat ? binop<T, SubSat> : binop<T, Sub>;
  if (op == "and")
    return binop<T, And>;
  if (op == "or")
    return binop<T, Or>;
  if (op == "xor")
    return binop<T, Xor>;
  if (op == "min")
    return binop<T, Min>;
  if (op == "max")
    return binop<T, Max>;
  if (op == "div")
    return binop<T, Div>;
  if (op == "rem")
    return binop<T, Rem>;
  if (op == "shl")
    return binop<T, Shl>;
  if (op == "shr")
    return binop<T, Shr>;
  if (op == "mul")
    return in.mode == 1 ? binop<T, MulHi> : binop<T, MulLo>;
  if (op == "not")
    return unop<T, Not>;
  if (op == "cnot")
    return unop<T, Cnot>;
  if (op == "neg")
    return unop<T, Neg>;
  if (op == "abs")
    return unop<T, Abs>;
  if (op == "popc")
    return unop<T, Popc>;
  if (op == "mov")
    return unop<T, Mov>;
  return nullptr;
}

ExecFn pickByType(const std::string &op, const Instr &in, Ty t) {
  switch (t) {
  case Ty::Pred:
    // Predicates hold 0 or 1: `not` is the logical negation (~1 would be
    // true), the other logic ops keep 0/1 as they are.
    return op == "not" ? unop<uint8_t, Cnot> : pickBin<uint8_t>(op, in);
  case Ty::B8:
  case Ty::U8:
    return pickBin<uint8_t>(op, in);
  case Ty::S8:
    return pickBin<int8_t>(op, in);
  case Ty::B16:
  case Ty::U16:
  case Ty::F16:
  case Ty::BF16:
    return pickBin<uint16_t>(op, in);
  case Ty::S16:
    return pickBin<int16_t>(op, in);
  case Ty::B32:
  case Ty::U32:
  case Ty::F32:
  case Ty::F16x2:
  case Ty::BF16x2:
    return pickBin<uint32_t>(op, in);
  case Ty::S32:
    return pickBin<int32_t>(op, in);
  case Ty::B64:
  case Ty::U64:
  case Ty::F64:
    return pickBin<uint64_t>(op, in);
  case Ty::S64:
    return pickBin<int64_t>(op, in);
  default:
    return nullptr;
  }
}

bool isIntTy(Ty t) { return !tyIsFloat(t) && t != Ty::None && t != Ty::B128; }

/// Integer instructions of a plain (op, type) form.
bool selectPlain(Instr &in, DecodeCtx &, std::string &why,
                 const std::string &op) {
  if (!isIntTy(in.ty)) {
    why = std::string("type .") + tyName(in.ty) + " is not implemented";
    return false;
  }
  if (in.sat && !(in.ty == Ty::S32 && (op == "add" || op == "sub"))) {
    why = ".sat is only implemented for add/sub.s32";
    return false;
  }
  if (in.vec != 1 || in.ty2 != Ty::None) {
    why = "unexpected modifiers";
    return false;
  }
  in.exec = pickByType(op, in, in.ty);
  if (!in.exec)
    why = "not implemented for this type";
  return in.exec != nullptr;
}

#define PLAIN(name)                                                            \
  s[#name] = [](Instr &in, DecodeCtx &c, std::string &why) {                   \
    return selectPlain(in, c, why, #name);                                     \
  };

// The carry chain: add.cc / addc / sub.cc / subc keep CC.CF per lane.
thread_local uint8_t carryFlag[32];
template <class T, bool Sub, bool CarryIn, bool CarryOut>
void addCarry(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    unsigned __int128 a = (U<T>)w.get(in.ops[1], l),
                      b = (U<T>)w.get(in.ops[2], l);
    unsigned __int128 c = CarryIn ? carryFlag[l] : 0;
    unsigned __int128 r;
    if (Sub) {
      r = a - b - c; // borrow when it wraps
      if (CarryOut)
        carryFlag[l] = a < b + c;
    } else {
      r = a + b + c;
      if (CarryOut)
        carryFlag[l] = (r >> (8 * sizeof(T))) & 1;
    }
    setReg(w, in.ops[0], l, (uint64_t)(U<T>)r);
  }
}
template <bool Sub, bool CarryIn>
bool selectCarry(Instr &in, DecodeCtx &, std::string &why) {
  bool wide = tySize(in.ty) == 8;
  if (!isIntTy(in.ty) || tySize(in.ty) < 4) {
    why = "carry arithmetic is .u32/.s32/.u64/.s64 only";
    return false;
  }
  if (in.cc)
    in.exec = wide ? addCarry<uint64_t, Sub, CarryIn, true>
                   : addCarry<uint32_t, Sub, CarryIn, true>;
  else
    in.exec = wide ? addCarry<uint64_t, Sub, CarryIn, false>
                   : addCarry<uint32_t, Sub, CarryIn, false>;
  return true;
}

/// mad{.lo,.hi}.cc / madc{.lo,.hi}[.cc]: the product's half plus c, with
/// the carry chain of add.cc / addc.
template <class T, bool Hi, bool CarryIn, bool CarryOut>
void madCarry(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    T a = (T)w.get(in.ops[1], l), b = (T)w.get(in.ops[2], l);
    unsigned __int128 p =
        Hi ? (U<T>)MulHi::f<T>(a, b, in) : (U<T>)MulLo::f<T>(a, b, in);
    unsigned __int128 r =
        p + (U<T>)w.get(in.ops[3], l) + (CarryIn ? carryFlag[l] : 0);
    if (CarryOut)
      carryFlag[l] = (r >> (8 * sizeof(T))) & 1;
    setReg(w, in.ops[0], l, (uint64_t)(U<T>)r);
  }
}
template <bool CarryIn>
bool selectMadCarry(Instr &in, DecodeCtx &c, std::string &why) {
  bool hi = c.take(".hi");
  c.take(".lo");
  if (tySize(in.ty) != 4 && tySize(in.ty) != 8) {
    why = "carry mad is 32/64-bit only";
    return false;
  }
  bool wide = tySize(in.ty) == 8, sgn = tyIsSigned(in.ty);
#define MC(T)                                                                  \
  (hi ? (in.cc ? madCarry<T, true, CarryIn, true>                              \
               : madCarry<T, true, CarryIn, false>)                            \
      : (in.cc ? madCarry<T, false, CarryIn, true>                             \
               : madCarry<T, false, CarryIn, false>))
  in.exec = wide ? (sgn ? MC(int64_t) : MC(uint64_t))
                 : (sgn ? MC(int32_t) : MC(uint32_t));
#undef MC
  return true;
}

/// mul.wide / mad.wide: 2x-width product of the source type.
template <class T, bool Mad>
void mulWide(WarpState &w, const Instr &in, uint32_t mask) {
  using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  FOR_LANES(mask, l) {
    W p = W((T)w.get(in.ops[1], l)) * W((T)w.get(in.ops[2], l));
    if (Mad)
      p = W(uint64_t(p) + w.get(in.ops[3], l));
    setReg(w, in.ops[0], l, (uint64_t)p);
  }
}
/// mad.lo / mad.hi.
template <class T, bool Hi>
void madLoHi(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    T a = (T)w.get(in.ops[1], l), b = (T)w.get(in.ops[2], l);
    T p = Hi ? MulHi::f<T>(a, b, in) : MulLo::f<T>(a, b, in);
    setReg(w, in.ops[0], l, out<T>(T(U<T>(p) + U<T>((T)w.get(in.ops[3], l)))));
  }
}

bool selectMul(Instr &in, DecodeCtx &c, std::string &why, bool mad) {
  if (tyIsFloat(in.ty))
    return false; // float forms: ExecFloat
  int mode = c.take(".hi") ? 1 : c.take(".wide") ? 2 : (c.take(".lo"), 0);
  in.mode = (uint8_t)mode;
  if (mode == 2) {
    switch (in.ty) {
    case Ty::S16:
      in.exec = mad ? mulWide<int16_t, true> : mulWide<int16_t, false>;
      break;
    case Ty::U16:
      in.exec = mad ? mulWide<uint16_t, true> : mulWide<uint16_t, false>;
      break;
    case Ty::S32:
      in.exec = mad ? mulWide<int32_t, true> : mulWide<int32_t, false>;
      break;
    case Ty::U32:
      in.exec = mad ? mulWide<uint32_t, true> : mulWide<uint32_t, false>;
      break;
    default:
      why = ".wide needs a 16- or 32-bit integer type";
      return false;
    }
    return true;
  }
  if (!mad)
    return selectPlain(in, c, why, "mul");
  if (in.cc) {
    in.mode = 0;
    c.words.push_back(mode ? ".hi" : ".lo");
    return selectMadCarry<false>(in, c, why);
  }
  switch (in.ty) {
  case Ty::S16:
    in.exec = mode ? madLoHi<int16_t, true> : madLoHi<int16_t, false>;
    break;
  case Ty::U16:
    in.exec = mode ? madLoHi<uint16_t, true> : madLoHi<uint16_t, false>;
    break;
  case Ty::S32:
    in.exec = mode ? madLoHi<int32_t, true> : madLoHi<int32_t, false>;
    break;
  case Ty::U32:
    in.exec = mode ? madLoHi<uint32_t, true> : madLoHi<uint32_t, false>;
    break;
  case Ty::S64:
    in.exec = mode ? madLoHi<int64_t, true> : madLoHi<int64_t, false>;
    break;
  case Ty::U64:
    in.exec = mode ? madLoHi<uint64_t, true> : madLoHi<uint64_t, false>;
    break;
  default:
    why = "mad needs an integer type";
    return false;
  }
  return true;
}

template <class T> void clzOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t v = (U<T>)w.get(in.ops[1], l);
    unsigned n = v ? __builtin_clzll(v) - (64 - 8 * sizeof(T)) : 8 * sizeof(T);
    setReg(w, in.ops[0], l, n);
  }
}
template <class T> void brevOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t v = (U<T>)w.get(in.ops[1], l), r = 0;
    for (unsigned i = 0; i < 8 * sizeof(T); ++i)
      r |= ((v >> i) & 1) << (8 * sizeof(T) - 1 - i);
    setReg(w, in.ops[0], l, r);
  }
}
/// bfind: bit position of the most significant non-sign bit, ~0 if none.
template <class T> void bfindOp(WarpState &w, const Instr &in, uint32_t mask) {
  const unsigned bits = 8 * sizeof(T);
  FOR_LANES(mask, l) {
    T v = (T)w.get(in.ops[1], l);
    uint64_t u = (U<T>)v;
    if (std::is_signed_v<T> && v < 0)
      u = (U<T>)~v;
    uint32_t r = u ? 63 - __builtin_clzll(u) : 0xffffffffu;
    if (in.mode && r != 0xffffffffu)
      r = bits - 1 - r;
    setReg(w, in.ops[0], l, r);
  }
}
/// bfe: extract `len` bits at `pos`, sign-extended for signed types.
template <class T> void bfeOp(WarpState &w, const Instr &in, uint32_t mask) {
  const unsigned bits = 8 * sizeof(T);
  FOR_LANES(mask, l) {
    uint64_t a = (U<T>)w.get(in.ops[1], l);
    unsigned pos = w.get(in.ops[2], l) & 0xff, len = w.get(in.ops[3], l) & 0xff;
    uint64_t r;
    bool sbit;
    if (std::is_signed_v<T>)
      sbit = len == 0 ? false : (a >> std::min(pos + len - 1, bits - 1)) & 1;
    else
      sbit = false;
    r = 0;
    for (unsigned i = 0; i < bits; ++i) {
      uint64_t bit = i < len && pos + i < bits ? (a >> (pos + i)) & 1 : sbit;
      if (i >= len)
        bit = sbit;
      r |= bit << i;
    }
    setReg(w, in.ops[0], l, truncBits(r, in.ty));
  }
}
/// bfi: insert the low `len` bits of a into b at `pos`.
template <class T> void bfiOp(WarpState &w, const Instr &in, uint32_t mask) {
  const unsigned bits = 8 * sizeof(T);
  FOR_LANES(mask, l) {
    uint64_t a = (U<T>)w.get(in.ops[1], l), b = (U<T>)w.get(in.ops[2], l);
    unsigned pos = w.get(in.ops[3], l) & 0xff, len = w.get(in.ops[4], l) & 0xff;
    for (unsigned i = 0; i < len && pos + i < bits; ++i)
      b = (b & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
    setReg(w, in.ops[0], l, b);
  }
}
/// prmt.b32 (default mode): byte selectors of {b, a}, msb replication.
void prmtOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t a = (uint32_t)w.get(in.ops[1], l),
             b = (uint32_t)w.get(in.ops[2], l);
    uint32_t c = (uint32_t)w.get(in.ops[3], l);
    uint64_t src = a | (b << 32);
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 0xf;
      uint32_t byte = (src >> (8 * (sel & 7))) & 0xff;
      if (sel & 8)
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    setReg(w, in.ops[0], l, r);
  }
}
/// shf.l / shf.r (.wrap / .clamp) funnel shifts of {b:a}.
template <bool Left, bool Wrap>
void shfOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    uint64_t a = (uint32_t)w.get(in.ops[1], l),
             b = (uint32_t)w.get(in.ops[2], l);
    uint32_t n = (uint32_t)w.get(in.ops[3], l);
    n = Wrap ? n & 31 : std::min(n, 32u);
    uint64_t v = (b << 32) | a;
    uint32_t r = Left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
    setReg(w, in.ops[0], l, r);
  }
}
/// sad: |a - b| + c.
template <class T> void sadOp(WarpState &w, const Instr &in, uint32_t mask) {
  FOR_LANES(mask, l) {
    T a = (T)w.get(in.ops[1], l), b = (T)w.get(in.ops[2], l);
    T d = a > b ? T(a - b) : T(b - a);
    setReg(w, in.ops[0], l, out<T>(T(U<T>(d) + U<T>((T)w.get(in.ops[3], l)))));
  }
}

template <template <class> class Op> ExecFn pickInt(Ty t) {
  switch (t) {
  case Ty::B32:
  case Ty::U32:
    return Op<uint32_t>::fn;
  case Ty::S32:
    return Op<int32_t>::fn;
  case Ty::B64:
  case Ty::U64:
    return Op<uint64_t>::fn;
  case Ty::S64:
    return Op<int64_t>::fn;
  default:
    return nullptr;
  }
}
template <class T> struct ClzT {
  static constexpr ExecFn fn = clzOp<T>;
};
template <class T> struct BrevT {
  static constexpr ExecFn fn = brevOp<T>;
};
template <class T> struct BfindT {
  static constexpr ExecFn fn = bfindOp<T>;
};
template <class T> struct BfeT {
  static constexpr ExecFn fn = bfeOp<T>;
};
template <class T> struct BfiT {
  static constexpr ExecFn fn = bfiOp<T>;
};

template <template <class> class Op>
bool selectBits(Instr &in, std::string &why) {
  in.exec = pickInt<Op>(in.ty);
  if (!in.exec)
    why = std::string("type .") + tyName(in.ty) + " is not implemented";
  return in.exec != nullptr;
}

} // namespace

void registerIntegerOps(SelectorMap &s) {
  PLAIN(and)
  PLAIN(or)
  PLAIN(xor) PLAIN(not) PLAIN(cnot) PLAIN(shl) PLAIN(shr) PLAIN(popc)
      s["div"] = [](Instr &in, DecodeCtx &c, std::string &why) {
        return selectPlain(in, c, why, "div");
      };
  s["rem"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    return selectPlain(in, c, why, "rem");
  };
  s["addc"] = selectCarry<false, true>;
  s["madc"] = selectMadCarry<true>;
  s["subc"] = selectCarry<true, true>;
  s["clz"] = [](Instr &in, DecodeCtx &, std::string &why) {
    return selectBits<ClzT>(in, why);
  };
  s["brev"] = [](Instr &in, DecodeCtx &, std::string &why) {
    return selectBits<BrevT>(in, why);
  };
  s["bfind"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    in.mode = c.take(".shiftamt");
    return selectBits<BfindT>(in, why);
  };
  s["bfe"] = [](Instr &in, DecodeCtx &, std::string &why) {
    return selectBits<BfeT>(in, why);
  };
  s["bfi"] = [](Instr &in, DecodeCtx &, std::string &why) {
    return selectBits<BfiT>(in, why);
  };
  s["prmt"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    if (!c.words.empty()) {
      why = "prmt mode " + c.words[0] + " is not implemented";
      return false;
    }
    in.exec = prmtOp;
    return true;
  };
  s["shf"] = [](Instr &in, DecodeCtx &c, std::string &why) {
    bool left = c.take(".l");
    bool right = c.take(".r");
    bool wrap = c.take(".wrap");
    bool clamp = c.take(".clamp");
    if (left == right || wrap == clamp) {
      why = "shf needs .l/.r and .wrap/.clamp";
      return false;
    }
    in.exec = left ? (wrap ? shfOp<true, true> : shfOp<true, false>)
                   : (wrap ? shfOp<false, true> : shfOp<false, false>);
    return true;
  };
  s["sad"] = [](Instr &in, DecodeCtx &, std::string &why) {
    in.exec = in.ty == Ty::S32   ? sadOp<int32_t>
              : in.ty == Ty::U32 ? sadOp<uint32_t>
                                 : nullptr;
    if (!in.exec)
      why = "sad is .s32/.u32 only";
    return in.exec != nullptr;
  };
}

/// Integer forms of opcodes shared with floats (ExecFloat dispatches).
bool selectIntegerForm(const std::string &op, Instr &in, DecodeCtx &c,
                       std::string &why) {
  if (op == "add" && (in.cc || in.ty == Ty::None))
    return selectCarry<false, false>(in, c, why);
  if (op == "sub" && in.cc)
    return selectCarry<true, false>(in, c, why);
  if (op == "mul")
    return selectMul(in, c, why, false);
  if (op == "mad")
    return selectMul(in, c, why, true);
  return selectPlain(in, c, why, op);
}

} // namespace gptc::emu
