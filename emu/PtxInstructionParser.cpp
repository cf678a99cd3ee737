//===- PtxInstructionParser.cpp - PTX instructions and operands -----------===//
//
// An instruction: its guard, opcode and modifiers, and operands
// (registers, special registers, immediates, [addresses], {vectors},
// labels, call argument lists), resolved to slots and offsets, then
// decoded (PtxDecode.cpp).
//
//===----------------------------------------------------------------------===//

#include "emu/PtxParserImpl.h"

#include <cstdlib>
#include <cstring>

namespace gptc::emu::detail {

namespace {

const std::map<std::string, Sreg> &sregs() {
  static const std::map<std::string, Sreg> m = {
      {"%tid.x", Sreg::TidX},
      {"%tid.y", Sreg::TidY},
      {"%tid.z", Sreg::TidZ},
      {"%ntid.x", Sreg::NtidX},
      {"%ntid.y", Sreg::NtidY},
      {"%ntid.z", Sreg::NtidZ},
      {"%ctaid.x", Sreg::CtaidX},
      {"%ctaid.y", Sreg::CtaidY},
      {"%ctaid.z", Sreg::CtaidZ},
      {"%nctaid.x", Sreg::NctaidX},
      {"%nctaid.y", Sreg::NctaidY},
      {"%nctaid.z", Sreg::NctaidZ},
      {"%laneid", Sreg::LaneId},
      {"%warpid", Sreg::WarpId},
      {"%nwarpid", Sreg::NWarpId},
      {"%smid", Sreg::SmId},
      {"%nsmid", Sreg::NSmId},
      {"%gridid", Sreg::GridId},
      {"%clock", Sreg::Clock},
      {"%clock64", Sreg::Clock64},
      {"%globaltimer", Sreg::GlobalTimer},
      {"%lanemask_eq", Sreg::LanemaskEq},
      {"%lanemask_lt", Sreg::LanemaskLt},
      {"%lanemask_le", Sreg::LanemaskLe},
      {"%lanemask_gt", Sreg::LanemaskGt},
      {"%lanemask_ge", Sreg::LanemaskGe},
      {"%dynamic_smem_size", Sreg::DynSmemSize},
      {"%total_smem_size", Sreg::TotalSmemSize}};
  return m;
}

} // namespace

bool Parser::parseAddress(Operand &o) {
  o.kind = Operand::Addr;
  const Token &base = peek();
  if (base.kind == Token::Number) {
    int64_t v;
    if (!number(v))
      return false;
    o.imm = v;
  } else {
    int r = findReg(base.text);
    if (r >= 0) {
      o.reg = r;
    } else {
      int v = findVar(base.text);
      if (v < 0)
        return fail("unknown name '" + base.text + "' in an address");
      const Variable &var = m.vars[v];
      o.addrSpace = var.space;
      o.imm = var.space == Space::Global || var.space == Space::Const
                  ? (int64_t)var.address
                  : (int64_t)var.offset;
      o.dynShared = var.externDynamic;
      o.kernelParam = var.space == Space::Param && curFunc >= 0 &&
                      m.funcs[curFunc].isEntry && scopes.size() >= 2 &&
                      scopes[1].vars.count(base.text);
    }
    ++p;
  }
  if (accept("+")) {
    int64_t off;
    if (!number(off))
      return false;
    o.imm += off;
  }
  return expect("]");
}

bool Parser::parseOperand(Operand &o, Instr &in) {
  if (accept("!"))
    o.neg = true;
  if (accept("[")) {
    return parseAddress(o);
  }
  if (accept("{")) {
    o.kind = Operand::Vec;
    while (!accept("}")) {
      accept(",");
      if (o.nvec == 4)
        return fail("vector operand of more than 4 elements");
      if (accept("_")) {
        o.vec[o.nvec++] = -1;
        continue;
      }
      if (peek().kind == Token::Number || peek().text == "-") {
        Operand element;
        if (!parseOperand(element, in))
          return false;
        if (element.kind != Operand::Imm || element.fimm)
          return fail("a vector element must be a register or a hex or "
                      "integer immediate");
        o.vecImm[o.nvec] = element.imm;
        o.vec[o.nvec++] = kVecImmediate;
        continue;
      }
      int r = findReg(peek().text);
      if (r < 0)
        return fail("unknown register '" + peek().text + "'");
      o.vec[o.nvec++] = r;
      ++p;
    }
    return true;
  }
  const Token &tok = peek();
  if (tok.kind == Token::Number || tok.text == "-") {
    bool neg = accept("-");
    const std::string &s = peek().text;
    o.kind = Operand::Imm;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
      o.imm = (int64_t)std::strtoull(s.c_str() + 2, nullptr, 16);
      if (neg)
        o.imm ^= 0x80000000;
      // An f32 literal used by an f64 instruction: widened by decode.
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
      o.imm = (int64_t)std::strtoull(s.c_str() + 2, nullptr, 16);
      if (neg)
        o.imm ^= (int64_t)0x8000000000000000ull;
    } else if (s.find_first_of(".eE") != std::string::npos &&
               s.find_first_of("xX") == std::string::npos) {
      double d = std::strtod(s.c_str(), nullptr);
      if (neg)
        d = -d;
      std::memcpy(&o.imm, &d, 8);
      o.fimm = true;
    } else {
      o.imm = (int64_t)std::strtoull(s.c_str(), nullptr, 0);
      if (neg)
        o.imm = -o.imm;
    }
    ++p;
    return true;
  }
  if (tok.text == "_") {
    o.kind = Operand::Sink;
    ++p;
    return true;
  }
  if (tok.text == "WARP_SZ") {
    o.kind = Operand::Imm;
    o.imm = 32;
    ++p;
    return true;
  }
  auto sr = sregs().find(tok.text);
  if (sr != sregs().end()) {
    o.kind = Operand::Sreg;
    o.sreg = (uint8_t)sr->second;
    ++p;
    return true;
  }
  int r = findReg(tok.text);
  if (r >= 0) {
    o.kind = Operand::Reg;
    o.reg = r;
    ++p;
    return true;
  }
  int v = findVar(tok.text);
  if (v >= 0) {
    const Variable &var = m.vars[v];
    o.kind = Operand::Imm;
    o.dynShared = var.externDynamic;
    o.addrSpace = var.space;
    o.imm = var.space == Space::Global || var.space == Space::Const
                ? (int64_t)var.address
                : (int64_t)var.offset;
    ++p;
    return true;
  }
  if (tok.text[0] == '%')
    return fail("unknown register '" + tok.text + "'");
  if (in.ctl == Ctl::Bra || tok.kind == Token::Ident) {
    // A label (branch target); resolved at the end of the function.
    o.kind = Operand::None;
    labelFixups.push_back({(uint32_t)m.code.size(), tok.text, tok.line});
    ++p;
    return true;
  }
  return fail("unexpected operand '" + tok.text + "'");
}

bool Parser::parseInstruction() {
  Instr in;
  in.line = peek().line;
  in.func = curFunc;
  if (accept("@")) {
    if (accept("!"))
      in.guardNeg = true;
    in.guard = findReg(peek().text);
    if (in.guard < 0)
      return fail("unknown guard predicate '" + peek().text + "'");
    ++p;
  }
  const std::string full = peek().text;
  ++p;
  std::string opcode = full;
  std::vector<std::string> mods;
  size_t dot = full.find('.');
  if (dot != std::string::npos) {
    opcode = full.substr(0, dot);
    size_t s = dot;
    while (s != std::string::npos) {
      size_t e = full.find('.', s + 1);
      // `.L2::cache_hint` style modifiers keep their `::` part whole.
      mods.push_back(full.substr(s, e == std::string::npos ? e : e - s));
      s = e;
    }
  }
  std::string fname = curFunc >= 0 ? m.funcs[curFunc].name : "?";
  if (opcode == "call") {
    CallSite cs;
    auto paramOf = [&](const std::string &name, uint64_t &off, uint64_t &size) {
      int v = findVar(name);
      if (v < 0 || m.vars[v].space != Space::Param)
        return fail("call argument '" + name + "' is not a .param");
      off = m.vars[v].offset;
      size = m.vars[v].size;
      return true;
    };
    if (accept("(")) {
      uint64_t off = 0, size = 0;
      if (!paramOf(peek().text, off, size))
        return false;
      ++p;
      cs.retOffset = (int64_t)off;
      cs.retSize = size;
      if (!expect(")") || !expect(","))
        return false;
    }
    std::string callee = peek().text;
    if (findReg(callee) >= 0)
      return fail("indirect call through '" + callee + "' in function '" +
                  fname + "' is not supported");
    ++p;
    callFixups.push_back({(uint32_t)m.code.size(), callee, in.line});
    if (accept(",")) {
      if (!expect("("))
        return false;
      while (!accept(")")) {
        accept(",");
        uint64_t off = 0, size = 0;
        if (!paramOf(peek().text, off, size))
          return false;
        ++p;
        cs.args.push_back({off, size});
      }
    }
    if (accept(","))
      return fail("call with a prototype is not supported");
    in.callArgs = (int)m.callSites.size();
    m.callSites.push_back(cs);
  } else {
    if (opcode == "bra" || opcode == "brx")
      in.ctl = Ctl::Bra;
    while (!is(";")) {
      if (in.nops && !accept(",") && !accept("|"))
        return fail("expected ',' in the operands of '" + full + "'");
      if (in.nops == 6)
        return fail("too many operands for '" + full + "'");
      if (!parseOperand(in.ops[in.nops++], in))
        return false;
    }
  }
  if (!expect(";"))
    return false;
  std::string why;
  if (!decodeInstr(in, opcode, mods, why))
    return fail("'" + full + "' in function '" + fname + "': " + why, in.line);
  m.code.push_back(in);
  m.text.push_back(full);
  return true;
}

} // namespace gptc::emu::detail
