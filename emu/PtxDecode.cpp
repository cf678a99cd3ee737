//===- PtxDecode.cpp - Opcode and modifiers to a handler ------------------===//
//
// Splits an opcode's modifiers into the fields every instruction has
// (types, state space, rounding, .sat/.ftz/.approx, comparison) and the
// words only one opcode understands, then lets that opcode's selector pick
// a handler. A modifier nobody consumed is an error, never ignored.
//
//===----------------------------------------------------------------------===//

#include "emu/ExecOps.h"
#include "emu/PtxParser.h"

namespace gptc::emu {

bool tyIsFloat(Ty t) {
  return t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2 ||
         t == Ty::F32 || t == Ty::F64;
}

bool tyIsSigned(Ty t) {
  return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64;
}

const char *tyName(Ty t) {
  static const char *names[] = {"none",   "pred", "b8",  "b16", "b32",   "b64",
                                "b128",   "u8",   "u16", "u32", "u64",   "s8",
                                "s16",    "s32",  "s64", "f16", "f16x2", "bf16",
                                "bf16x2", "f32",  "f64"};
  return names[(int)t];
}

int Function::maxThreads() const {
  if (reqntid[0])
    return reqntid[0] * std::max(1u, reqntid[1]) * std::max(1u, reqntid[2]);
  if (maxntid[0])
    return maxntid[0] * std::max(1u, maxntid[1]) * std::max(1u, maxntid[2]);
  return 1024;
}

namespace {

const SelectorMap &selectors() {
  static const SelectorMap m = [] {
    SelectorMap s;
    registerIntegerOps(s);
    registerFloatOps(s);
    registerConvertOps(s);
    registerMemoryOps(s);
    registerWarpOps(s);
    registerMatrixOps(s);
    registerControlOps(s);
    return s;
  }();
  return m;
}

const std::map<std::string, Ty> &typeWords() {
  static const std::map<std::string, Ty> m = {
      {".pred", Ty::Pred},   {".b8", Ty::B8},     {".b16", Ty::B16},
      {".b32", Ty::B32},     {".b64", Ty::B64},   {".b128", Ty::B128},
      {".u8", Ty::U8},       {".u16", Ty::U16},   {".u32", Ty::U32},
      {".u64", Ty::U64},     {".s8", Ty::S8},     {".s16", Ty::S16},
      {".s32", Ty::S32},     {".s64", Ty::S64},   {".f16", Ty::F16},
      {".f16x2", Ty::F16x2}, {".bf16", Ty::BF16}, {".bf16x2", Ty::BF16x2},
      {".f32", Ty::F32},     {".f64", Ty::F64}};
  return m;
}

/// Modifiers that change nothing in a sequentially consistent, cache-less
/// emulator: memory-order and scope qualifiers, cache operators, `.uni`
/// and `.aligned` promises (the promises are not verified).
bool isNoOpWord(const std::string &w) {
  static const std::set<std::string> words = {
      ".uni",     ".aligned", ".nc",      ".volatile", ".relaxed",
      ".acquire", ".release", ".acq_rel", ".weak",     ".sc",
      ".cta",     ".gpu",     ".sys",     ".cluster",  ".ca",
      ".cg",      ".cs",      ".lu",      ".cv",       ".wb",
      ".wt",      ".sync",    ".full",    ".noftz",    ".mmio"};
  return words.count(w) ||
         (w.find("::") != std::string::npos && w.rfind(".shared::", 0) != 0);
}

Cmp cmpWord(const std::string &w) {
  static const std::map<std::string, Cmp> m = {
      {".eq", Cmp::Eq},   {".ne", Cmp::Ne},   {".lt", Cmp::Lt},
      {".le", Cmp::Le},   {".gt", Cmp::Gt},   {".ge", Cmp::Ge},
      {".lo", Cmp::Lo},   {".ls", Cmp::Ls},   {".hi", Cmp::Hi},
      {".hs", Cmp::Hs},   {".equ", Cmp::Equ}, {".neu", Cmp::Neu},
      {".ltu", Cmp::Ltu}, {".leu", Cmp::Leu}, {".gtu", Cmp::Gtu},
      {".geu", Cmp::Geu}, {".num", Cmp::Num}, {".nan", Cmp::Nan}};
  auto it = m.find(w);
  return it == m.end() ? Cmp::None : it->second;
}

Rnd rndWord(const std::string &w) {
  static const std::map<std::string, Rnd> m = {
      {".rn", Rnd::Rn},   {".rz", Rnd::Rz},   {".rm", Rnd::Rm},
      {".rp", Rnd::Rp},   {".rni", Rnd::Rni}, {".rzi", Rnd::Rzi},
      {".rmi", Rnd::Rmi}, {".rpi", Rnd::Rpi}, {".rna", Rnd::Rna}};
  auto it = m.find(w);
  return it == m.end() ? Rnd::None : it->second;
}

} // namespace

Ty parseTypeWord(const std::string &word) {
  auto it = typeWords().find(word);
  return it == typeWords().end() ? Ty::None : it->second;
}

bool decodeInstr(Instr &in, const std::string &opcode,
                 const std::vector<std::string> &mods, std::string &why) {
  auto sel = selectors().find(opcode);
  if (sel == selectors().end()) {
    why = "opcode '" + opcode + "' is not implemented by the emulator";
    return false;
  }
  bool compares = opcode == "setp" || opcode == "set" || opcode == "slct";
  DecodeCtx ctx;
  for (const std::string &w : mods) {
    auto ty = typeWords().find(w);
    if (ty != typeWords().end()) {
      ctx.tys.push_back(ty->second);
      continue;
    }
    if (compares && cmpWord(w) != Cmp::None && in.cmp == Cmp::None) {
      in.cmp = cmpWord(w);
      continue;
    }
    if (compares && (w == ".and" || w == ".or" || w == ".xor")) {
      in.boolOp = w == ".and"  ? BoolOp::And
                  : w == ".or" ? BoolOp::Or
                               : BoolOp::Xor;
      continue;
    }
    if (rndWord(w) != Rnd::None) {
      in.rnd = rndWord(w);
      continue;
    }
    if (w == ".global")
      in.space = Space::Global;
    else if (w == ".shared" || w == ".shared::cta")
      in.space = Space::Shared;
    else if (w == ".local")
      in.space = Space::Local;
    else if (w == ".param")
      in.space = Space::Param;
    else if (w == ".const")
      in.space = Space::Const;
    else if (w == ".sat")
      in.sat = true;
    else if (w == ".ftz")
      in.ftz = true;
    else if (w == ".approx")
      in.approx = true;
    else if (w == ".cc")
      in.cc = true;
    else if (w == ".NaN")
      in.nanMode = true;
    else if (w == ".to")
      ctx.to = true;
    else if (w == ".v2" || w == ".v4")
      in.vec = (uint8_t)(w[2] - '0');
    else if (w == ".uni")
      in.uni = true;
    else if (!isNoOpWord(w))
      ctx.words.push_back(w);
  }
  if (!ctx.tys.empty())
    in.ty = ctx.tys[0];
  if (ctx.tys.size() > 1)
    in.ty2 = ctx.tys[1];
  // Decimal float literals become the instruction's float format; 0f
  // literals used by f64 instructions widen.
  Ty fty = in.ty2 != Ty::None && opcode == "cvt" ? in.ty2 : in.ty;
  if (opcode == "setp" || opcode == "set")
    fty = in.ty2 != Ty::None ? in.ty2 : in.ty;
  for (unsigned i = 0; i < in.nops; ++i) {
    Operand &o = in.ops[i];
    if (o.kind != Operand::Imm)
      continue;
    if (o.fimm) {
      double d = fromBits<double>((uint64_t)o.imm);
      if (fty == Ty::F32)
        o.imm = (int64_t)toBits<float>((float)d);
      else if (fty == Ty::F16)
        o.imm = floatToHalf(d, Rnd::Rn);
      else if (fty == Ty::BF16)
        o.imm = floatToBf16(d, Rnd::Rn);
      else if (fty != Ty::F64)
        o.imm = (int64_t)d;
    }
  }
  if (!sel->second(in, ctx, why))
    return false;
  if (!ctx.words.empty()) {
    why = "modifier '" + ctx.words[0] + "' of '" + opcode +
          "' is not implemented by the emulator";
    return false;
  }
  in.iclass = classifyInstr(opcode, in);
  return true;
}

} // namespace gptc::emu
