//===- PtxModule.h - Decoded PTX module of the emulated device --*- C++ -*-===//
//
// The emulator decodes a PTX module once, at cuModuleLoadData: every
// instruction becomes an `Instr` with its opcode, types, modifiers and
// operands resolved to register slots, immediates and address offsets, and a
// handler chosen for it. Executing a kernel then does no string work.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_PTXMODULE_H
#define GPTC_EMU_PTXMODULE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gptc::emu {

/// PTX scalar types. Packed types (f16x2, bf16x2) are 32 bits wide.
enum class Ty : uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  F32,
  F64
};

/// Bytes a value of `t` occupies (predicates: 1).
inline unsigned tySize(Ty t) {
  //                        None Pred B8 B16 B32 B64 B128 U8 U16 U32 U64
  static constexpr unsigned char sizes[] = {0, 1, 1, 2, 4, 8, 16, 1, 2, 4, 8,
                                            // S8 S16 S32 S64 F16 F16x2 BF16
                                            1, 2, 4, 8, 2, 4, 2,
                                            // BF16x2 F32 F64
                                            4, 4, 8};
  return sizes[(int)t];
}
bool tyIsFloat(Ty t);
bool tyIsSigned(Ty t);
const char *tyName(Ty t);

/// State spaces of memory operands and variables.
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };

/// Rounding modifiers (.rn is the default of float arithmetic).
enum class Rnd : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna };

/// Comparison operators of setp/set/slct and the boolean combiner.
enum class Cmp : uint8_t {
  None,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Lo,
  Ls,
  Hi,
  Hs,
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu,
  Num,
  Nan
};
enum class BoolOp : uint8_t { None, And, Or, Xor };

/// Special registers, read per lane.
enum class Sreg : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  SmId,
  NSmId,
  GridId,
  Clock,
  Clock64,
  GlobalTimer,
  LanemaskEq,
  LanemaskLt,
  LanemaskLe,
  LanemaskGt,
  LanemaskGe,
  DynSmemSize,
  TotalSmemSize
};

/// One operand after decoding.
/// A vector element that is an immediate (`st.global.v4.b32 [a], {0f00000000,
/// ...}`: LLVM stores constants so), in Operand::vecImm.
constexpr int32_t kVecImmediate = -2;

struct Operand {
  enum Kind : uint8_t { None, Reg, Imm, Sreg, Addr, Vec, Sink } kind = None;
  bool neg = false;         ///< `!%p` for predicate operands.
  bool fimm = false;        ///< Imm holds a decimal float literal as f64 bits.
  bool kernelParam = false; ///< Addr symbol is a kernel parameter.
  bool dynShared = false;   ///< imm is relative to the extern .shared base.
  int32_t reg = -1; ///< register slot (Reg, and the base of Addr), -1 none.
  int64_t imm = 0;  ///< immediate bits, or the address offset.
  uint8_t sreg = 0; ///< Sreg id.
  uint8_t nvec = 0; ///< Vec: number of elements.
  int32_t vec[4] = {-1, -1, -1, -1}; ///< Vec elements (register slots, -1: `_`,
                                     ///< kVecImmediate: vecImm[i]).
  int64_t vecImm[4] = {0, 0, 0, 0};  ///< Vec elements that are immediates.
  Space addrSpace = Space::Generic;  ///< space the symbol base lives in.
};

struct Instr;
struct WarpState;
/// Executes `in` for the lanes of `mask` of a warp.
using ExecFn = void (*)(WarpState &, const Instr &, uint32_t mask);

/// Opcode families the scheduler must treat specially.
enum class Ctl : uint8_t { None, Bra, Call, Ret, Exit, Bar, WarpSync, Trap };

/// A decoded instruction.
struct Instr {
  ExecFn exec = nullptr;
  Ctl ctl = Ctl::None;
  uint16_t op = 0;   ///< opcode id (PtxOpcodes.h)
  Ty ty = Ty::None;  ///< operation type (destination type for cvt)
  Ty ty2 = Ty::None; ///< source type of cvt, compare type of set
  Space space = Space::Generic;
  Rnd rnd = Rnd::None;
  Cmp cmp = Cmp::None;
  BoolOp boolOp = BoolOp::None;
  uint8_t vec = 1;  ///< .v2/.v4
  uint8_t mode = 0; ///< opcode-specific sub-mode (hi/lo/wide, shfl..)
  bool sat = false, ftz = false, approx = false, cc = false, nanMode = false;
  bool uni = false;
  int32_t guard = -1; ///< guard predicate slot, -1 none
  bool guardNeg = false;
  uint8_t nops = 0;
  Operand ops[6];
  int32_t target = -1;   ///< branch target pc / callee function index
  int32_t callArgs = -1; ///< index into Module::callSites
  int8_t memberOp = -1;  ///< member-mask operand of warp-sync ops
  uint32_t line = 0;     ///< PTX source line
  int32_t func = -1;     ///< function the instruction belongs to
  uint8_t iclass = 0;    ///< gptcEmuInstrClass
  /// The innermost loop around the instruction: pcs [loopStart, loopEnd]
  /// between a backward branch's target and the branch; -1 outside loops.
  int32_t loopStart = -1, loopEnd = -1;
};

/// A variable in a state space (global/const/shared/local/param).
struct Variable {
  std::string name;
  Space space = Space::Global;
  uint64_t size = 0, align = 1;
  uint64_t offset = 0;  ///< shared/local/param: offset in its area
  uint64_t address = 0; ///< global/const: device address
  std::vector<uint8_t> init;
  bool externDynamic = false;
  Ty ty = Ty::None; ///< element type
  bool ptr = false; ///< a parameter declared .ptr
};

/// `call (ret), f, (args)`: byte ranges of the caller's param variables.
struct CallSite {
  std::vector<std::pair<uint64_t, uint64_t>> args; ///< (offset, size)
  int64_t retOffset = -1;
  uint64_t retSize = 0;
};

/// An .entry or .func.
struct Function {
  std::string name;
  bool isEntry = false;
  uint32_t firstPc = 0, endPc = 0;
  uint32_t line = 0;
  /// Incoming parameters: offset in the kernel param buffer (entries) or
  /// in the thread's param area (functions), and size.
  std::vector<std::pair<uint64_t, uint64_t>> params;
  std::vector<uint64_t> paramAlign;
  std::vector<Ty> paramTy;      ///< element type of each parameter
  std::vector<bool> paramIsPtr; ///< declared `.ptr` (a pointer)
  int64_t retOffset = -1;       ///< .func return value in the param area
  uint64_t retSize = 0;
  uint64_t kernelParamBytes = 0;
  uint32_t maxntid[3] = {0, 0, 0}, reqntid[3] = {0, 0, 0};
  int maxThreads() const;
};

/// A decoded PTX module.
struct Module {
  std::string version, target;
  unsigned addressSize = 64;
  std::vector<Instr> code;
  std::vector<Function> funcs;
  std::map<std::string, int> funcIndex;
  std::vector<Variable> vars;
  std::map<std::string, int> varIndex;
  std::vector<CallSite> callSites;
  uint32_t numRegs = 0;              ///< register slots of all functions
  uint64_t staticShared = 0;         ///< bytes of .shared variables
  uint64_t dynSharedAlign = 1;       ///< alignment of the extern .shared array
  uint64_t localBytes = 0;           ///< per-thread .local bytes
  uint64_t paramBytes = 0;           ///< per-thread param area bytes
  std::vector<std::string> regNames; ///< slot -> name, for reports
  std::vector<std::string> text;     ///< pc -> opcode with its modifiers
};

} // namespace gptc::emu

#endif
