//===- ExecOps.h - Instruction handlers of the emulator ---------*- C++ -*-===//
//
// Each family of opcodes (ALU, conversions, memory, warp-level, control)
// registers a selector per opcode name. Decoding calls the selector with
// the instruction's types and leftover modifiers; the selector checks the
// combination and picks a handler, or says why it cannot.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_EXECOPS_H
#define GPTC_EMU_EXECOPS_H

#include "emu/ExecState.h"
#include "emu/FloatFormats.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gptc::emu {

/// What decoding knows of an instruction beyond its fixed fields.
struct DecodeCtx {
  std::vector<Ty> tys;            ///< type modifiers, in order
  std::vector<std::string> words; ///< opcode-specific modifiers
  bool to = false;                ///< cvta.to
  /// Takes the one of `n` alternative modifiers present: its index, or -1.
  int takeOneOf(const char *const *alternatives, int n) {
    int found = -1;
    for (int i = 0; i < n; ++i)
      if (take(alternatives[i]))
        found = i;
    return found;
  }
  /// Takes an opcode-specific modifier if present.
  bool take(const char *w) {
    for (auto it = words.begin(); it != words.end(); ++it)
      if (*it == w) {
        words.erase(it);
        return true;
      }
    return false;
  }
};

using SelectFn = bool (*)(Instr &, DecodeCtx &, std::string &why);
using SelectorMap = std::map<std::string, SelectFn>;

void registerIntegerOps(SelectorMap &m);
void registerFloatOps(SelectorMap &m);
void registerConvertOps(SelectorMap &m);
void registerMemoryOps(SelectorMap &m);
void registerWarpOps(SelectorMap &m);
void registerMatrixOps(SelectorMap &m);
void registerControlOps(SelectorMap &m);

/// The gptcEmuInstrClass of a decoded instruction (InstrClass.cpp).
uint8_t classifyInstr(const std::string &opcode, const Instr &in);
/// Its name in reports ("fp32", "div64", ...).
const char *instrClassName(unsigned instrClass);

/// The bytes a lane's memory instruction moves: its type's size times its
/// vector width, or cp.async's size operand (cp.async has no type).
unsigned laneAccessBytes(const Instr &in);
/// Counts one warp-level access of `bytes` per lane at the lanes' addresses
/// `addr` (indexed by lane) in global memory, or in shared memory at
/// offsets into the block's shared memory (ExecCounters.cpp).
void countGlobalRequest(WarpState &w, const Instr &in, uint32_t mask,
                        const uint64_t *addr, unsigned bytes, bool write);
void countSharedRequest(WarpState &w, const Instr &in, uint32_t mask,
                        const uint64_t *addr, unsigned bytes);

/// Translates an access of `size` bytes at `addr` in `space` for `lane`
/// to a host pointer, or records a fault and returns null
/// (ExecMemory.cpp).
uint8_t *resolveAccess(WarpState &w, const Instr &in, unsigned lane,
                       uint64_t addr, Space space, unsigned size, bool write,
                       bool kernelParam, bool atomic = false);

/// Completes the cp.async copies of `lanes` whose group is below
/// `groupsBelow` (ExecMatrix.cpp).
void completeAsyncCopies(WarpState &w, uint32_t lanes, uint64_t groupsBelow);

/// The number of lanes in a mask (a whole warp without a popcount call:
/// the library is built for baseline x86-64, which lacks the instruction).
inline unsigned laneCount(uint32_t mask) {
  return mask == ~0u ? 32 : (unsigned)__builtin_popcount(mask);
}

/// Iterates the lanes of a mask.
#define FOR_LANES(mask, l)                                                     \
  for (uint32_t _m = (mask), l; _m && ((l = __builtin_ctz(_m)), true);         \
       _m &= _m - 1)

__attribute__((always_inline)) inline uint64_t WarpState::get(const Operand &o,
                                                              unsigned lane) {
  if (o.kind == Operand::Reg)
    return regs[o.reg * 32 + lane];
  if (o.kind == Operand::Imm)
    return (uint64_t)o.imm;
  return sreg(o.sreg, lane);
}

/// An operand's value in every lane of a mask, read without a per-lane
/// test of its kind: a register's 32 lane slots, an immediate (one value,
/// step 0), or a special register read lane by lane into `buf`.
struct LaneOperand {
  const uint64_t *p;
  unsigned step = 1;
  uint64_t buf[32];
  LaneOperand(WarpState &w, const Operand &o, uint32_t mask) {
    if (o.kind == Operand::Reg) {
      p = &w.regs[o.reg * 32];
    } else if (o.kind == Operand::Imm) {
      p = reinterpret_cast<const uint64_t *>(&o.imm);
      step = 0;
    } else {
      for (uint32_t m = mask; m; m &= m - 1)
        buf[__builtin_ctz(m)] = w.get(o, __builtin_ctz(m));
      p = buf;
    }
  }
  uint64_t operator[](unsigned lane) const { return p[lane * step]; }
};

/// Calls fn(lane) for the lanes of `mask` in order; a whole warp runs as a
/// plain loop the compiler can unroll.
template <class Fn>
__attribute__((always_inline)) inline void forEachLane(uint32_t mask, Fn fn) {
  if (mask == ~0u) {
    for (unsigned l = 0; l < 32; ++l)
      fn(l);
    return;
  }
  FOR_LANES(mask, l) fn(l);
}

/// Writes a result, zero-extended to the slot (a `_` sink drops it).
inline void setReg(WarpState &w, const Operand &o, unsigned lane,
                   uint64_t bits) {
  if (o.kind == Operand::Reg)
    w.regs[o.reg * 32 + lane] = bits;
}

/// Truncates bits to a type's width.
inline uint64_t truncBits(uint64_t b, Ty t) {
  unsigned s = tySize(t);
  return s >= 8 ? b : b & ((1ull << (8 * s)) - 1);
}

/// Sign- or zero-extends the low bits of `b` of type `t` to 64 bits.
inline int64_t extendBits(uint64_t b, Ty t) {
  unsigned bits = 8 * tySize(t);
  if (bits >= 64)
    return (int64_t)b;
  if (tyIsSigned(t))
    return (int64_t)(b << (64 - bits)) >> (64 - bits);
  return (int64_t)(b & ((1ull << bits) - 1));
}

/// The predicate value of operand `o` (with `!`).
inline bool getPred(WarpState &w, const Operand &o, unsigned lane) {
  return (w.get(o, lane) != 0) != o.neg;
}

} // namespace gptc::emu

#endif
