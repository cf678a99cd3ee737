//===- InstrClass.cpp - What kind of work an instruction is ---------------===//
//
// The classes of gptcEmuInstrClass (gptc_emu.h), decided once when an
// instruction is decoded from its opcode, types and state space. They are
// the classes a GPU issues to different units: the FP32 and integer pipes,
// the tensor cores, the SFU (multi-function unit), the load/store unit by
// memory space, and the instructions a GPU runs as a subroutine (integer
// division and IEEE-rounded f32 division, square root and reciprocal).
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"

namespace gptc::emu {

namespace {

bool isWide(Ty t) { return t == Ty::U64 || t == Ty::S64 || t == Ty::B64; }

bool isHalf(Ty t) {
  return t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2;
}

/// Arithmetic on `t`: by its float format or integer width.
gptcEmuInstrClass arithmetic(Ty t) {
  if (t == Ty::F32)
    return GPTC_EMU_FP32;
  if (t == Ty::F64)
    return GPTC_EMU_FP64;
  if (isHalf(t))
    return GPTC_EMU_FP16;
  return isWide(t) ? GPTC_EMU_INT64 : GPTC_EMU_INT32;
}

gptcEmuInstrClass memory(Space s) {
  switch (s) {
  case Space::Shared:
    return GPTC_EMU_SHARED;
  case Space::Local:
    return GPTC_EMU_LOCAL;
  case Space::Param:
  case Space::Const:
    return GPTC_EMU_PARAM;
  default:
    return GPTC_EMU_GLOBAL;
  }
}

gptcEmuInstrClass classOf(const std::string &op, const Instr &in) {
  switch (in.ctl) {
  case Ctl::Bra:
  case Ctl::Call:
  case Ctl::Ret:
  case Ctl::Exit:
  case Ctl::Trap:
    return GPTC_EMU_BRANCH;
  case Ctl::Bar:
    return GPTC_EMU_BARRIER;
  default:
    break;
  }
  if (op == "mma")
    return GPTC_EMU_HMMA;
  if (op == "ldmatrix")
    return GPTC_EMU_SHARED;
  if (op == "cp") // cp.async copies; its commit and wait groups
    return in.nops >= 3 ? GPTC_EMU_GLOBAL : GPTC_EMU_BARRIER;
  if (op == "bar" || op == "barrier")
    return in.ctl == Ctl::WarpSync ? GPTC_EMU_WARP : GPTC_EMU_BARRIER;
  if (op == "ld" || op == "ldu" || op == "st" || op == "atom" || op == "red")
    return memory(in.space);
  if (op == "shfl" || op == "vote" || op == "redux" || op == "activemask")
    return GPTC_EMU_WARP;
  if (op == "cvt" || op == "cvta" || op == "isspacep")
    return GPTC_EMU_CONVERT;
  if (op == "mov" || op == "selp" || op == "prmt" || op == "slct")
    return GPTC_EMU_MOVE;
  if (op == "div" || op == "rem") {
    if (in.ty == Ty::F32)
      return in.approx ? GPTC_EMU_SFU : GPTC_EMU_DIV32;
    if (tyIsFloat(in.ty))
      return arithmetic(in.ty);
    return isWide(in.ty) ? GPTC_EMU_DIV64 : GPTC_EMU_DIV32;
  }
  if (op == "sqrt" || op == "rcp")
    return in.approx || in.ty != Ty::F32
               ? (in.ty == Ty::F64 ? GPTC_EMU_FP64 : GPTC_EMU_SFU)
               : GPTC_EMU_DIV32;
  if (op == "rsqrt" || op == "ex2" || op == "lg2" || op == "sin" ||
      op == "cos" || op == "tanh")
    return GPTC_EMU_SFU;
  if (op == "setp" || op == "set")
    return arithmetic(in.ty2 != Ty::None ? in.ty2 : in.ty);
  return arithmetic(in.ty);
}

} // namespace

uint8_t classifyInstr(const std::string &opcode, const Instr &in) {
  return (uint8_t)classOf(opcode, in);
}

const char *instrClassName(unsigned c) {
  static const char *names[GPTC_EMU_INSTR_CLASSES] = {
      "fp32",   "fp16",  "fp64",  "hmma", "int32",  "int64",
      "div32",  "div64", "sfu",   "cvt",  "mov",    "global",
      "shared", "local", "param", "warp", "branch", "barrier"};
  return c < GPTC_EMU_INSTR_CLASSES ? names[c] : "?";
}

} // namespace gptc::emu
