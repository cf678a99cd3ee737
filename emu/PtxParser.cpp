//===- PtxParser.cpp - PTX text to a decoded module -----------------------===//
//
// A recursive-descent reader of the PTX subset compilers emit: module
// directives, variables in every state space, .entry/.func with parameters,
// nested scopes with .reg/.param/.local declarations, labels and
// instructions. Names resolve to register slots and addresses here, so
// execution never sees a string.
//
//===----------------------------------------------------------------------===//

#include "emu/PtxParserImpl.h"

#include <cstdlib>
#include <cstring>

namespace gptc::emu {

namespace detail {

/// Marks each instruction's innermost loop: a backward branch at pc b to t
/// makes [t, b] a loop; the shortest such range around a pc is its loop.
void markLoops(Module &m) {
  for (size_t b = 0; b < m.code.size(); ++b) {
    const Instr &br = m.code[b];
    if (br.ctl != Ctl::Bra || br.target < 0 || (size_t)br.target > b)
      continue;
    for (size_t pc = (size_t)br.target; pc <= b; ++pc) {
      Instr &in = m.code[pc];
      if (in.loopStart < 0 ||
          in.loopEnd - in.loopStart > (int32_t)b - br.target) {
        in.loopStart = br.target;
        in.loopEnd = (int32_t)b;
      }
    }
  }
}

bool Parser::number(int64_t &v) {
  bool neg = accept("-");
  const Token &tok = peek();
  if (tok.kind != Token::Number)
    return fail("expected a number, found '" + tok.text + "'");
  v = (int64_t)std::strtoull(tok.text.c_str(), nullptr, 0);
  if (neg)
    v = -v;
  ++p;
  return true;
}

int Parser::findReg(const std::string &name) const {
  for (auto s = scopes.rbegin(); s != scopes.rend(); ++s) {
    auto it = s->regs.find(name);
    if (it != s->regs.end())
      return it->second;
  }
  size_t d = name.size();
  while (d > 0 && std::isdigit((unsigned char)name[d - 1]))
    --d;
  if (d == name.size() || d == 0)
    return -1;
  std::string prefix = name.substr(0, d);
  int idx = std::atoi(name.c_str() + d);
  for (auto s = scopes.rbegin(); s != scopes.rend(); ++s) {
    auto it = s->ranges.find(prefix);
    if (it != s->ranges.end() && idx < it->second.second)
      return it->second.first + idx;
  }
  return -1;
}

int Parser::findVar(const std::string &name) const {
  for (auto s = scopes.rbegin(); s != scopes.rend(); ++s) {
    auto it = s->vars.find(name);
    if (it != s->vars.end())
      return it->second;
  }
  auto it = m.varIndex.find(name);
  return it == m.varIndex.end() ? -1 : it->second;
}

bool Parser::run() {
  scopes.emplace_back();
  while (peek().kind != Token::End) {
    const std::string &w = peek().text;
    uint32_t line = peek().line;
    if (w == ".version") {
      ++p;
      m.version = peek().text;
      ++p;
    } else if (w == ".target") {
      ++p;
      m.target = peek().text;
      ++p;
      while (accept(","))
        ++p;
    } else if (w == ".address_size") {
      ++p;
      int64_t v;
      if (!number(v))
        return false;
      m.addressSize = (unsigned)v;
      if (v != 64)
        return fail(".address_size " + std::to_string(v) +
                        " is not supported (64 only)",
                    line);
    } else if (w == ".file" || w == ".loc") {
      skipLine();
    } else if (w == ".section") {
      while (peek().kind != Token::End && !accept("}"))
        ++p;
    } else if (w == ".visible" || w == ".weak" || w == ".common") {
      ++p;
    } else if (w == ".extern") {
      ++p;
      if (is(".global") || is(".shared") || is(".const")) {
        Space s = is(".shared")  ? Space::Shared
                  : is(".const") ? Space::Const
                                 : Space::Global;
        ++p;
        if (!parseVariable(s, true, true))
          return false;
      }
    } else if (w == ".entry" || w == ".func") {
      ++p;
      if (!parseFunction(w == ".entry"))
        return false;
    } else if (w == ".global" || w == ".const" || w == ".shared") {
      Space s = w == ".shared"  ? Space::Shared
                : w == ".const" ? Space::Const
                                : Space::Global;
      ++p;
      if (!parseVariable(s, false, true))
        return false;
    } else if (w == ".pragma") {
      while (peek().kind != Token::End && !accept(";"))
        ++p;
    } else {
      return fail("unexpected '" + w + "' at module scope", line);
    }
  }
  for (const Fixup &f : callFixups) {
    auto it = m.funcIndex.find(f.name);
    if (it == m.funcIndex.end() || m.funcs[it->second].endPc == 0)
      return fail("call of '" + f.name + "', which has no body", f.line);
    m.code[f.pc].target = it->second;
  }
  if (m.version.empty() || m.target.empty())
    return fail("missing .version or .target directive", 1);
  // The extern .shared array starts after the static variables.
  uint64_t a = m.dynSharedAlign;
  uint64_t dynBase = (m.staticShared + a - 1) / a * a;
  for (Instr &in : m.code)
    for (unsigned i = 0; i < in.nops; ++i)
      if (in.ops[i].dynShared)
        in.ops[i].imm += (int64_t)dynBase;
  m.staticShared = std::max(m.staticShared, dynBase);
  markLoops(m);
  return true;
}

bool Parser::parseVariable(Space space, bool isExtern, bool moduleScope) {
  Variable v;
  v.space = space;
  uint32_t line = peek().line;
  Ty ty = Ty::None;
  unsigned vecN = 1;
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    const std::string &w = peek().text;
    if (w == ".align") {
      ++p;
      int64_t a;
      if (!number(a))
        return false;
      v.align = (uint64_t)a;
      continue;
    }
    if (w == ".v2" || w == ".v4")
      vecN = w[2] - '0';
    else if (w == ".ptr")
      v.ptr = true;
    else if (parseTypeWord(w) != Ty::None)
      ty = parseTypeWord(w);
    else if (w != ".ptr" && w != ".global" && w != ".shared" && w != ".const" &&
             w != ".local")
      return fail("unsupported variable attribute '" + w + "'");
    ++p;
  }
  if (ty == Ty::None)
    return fail("variable without a type");
  v.ty = ty;
  v.name = peek().text;
  ++p;
  uint64_t count = 1;
  bool unsized = false;
  while (accept("[")) {
    if (accept("]")) {
      unsized = true;
      continue;
    }
    int64_t n;
    if (!number(n) || !expect("]"))
      return false;
    count *= (uint64_t)n;
  }
  uint64_t elem = tySize(ty) * vecN;
  v.size = unsized ? 0 : elem * count;
  if (v.align < elem && !unsized)
    v.align = std::max<uint64_t>(v.align, std::min<uint64_t>(elem, 16));
  if (accept("=")) {
    std::vector<int64_t> vals;
    int depth = 0;
    do {
      if (accept("{")) {
        ++depth;
        continue;
      }
      if (accept("}")) {
        --depth;
        continue;
      }
      if (accept(","))
        continue;
      int64_t x;
      if (peek().kind == Token::Number && tyIsFloat(ty) &&
          peek().text.find_first_of(".eE") != std::string::npos &&
          peek().text[1] != 'f' && peek().text[1] != 'd') {
        double d = std::strtod(peek().text.c_str(), nullptr);
        if (ty == Ty::F32) {
          float f = (float)d;
          uint32_t b;
          std::memcpy(&b, &f, 4);
          x = b;
        } else {
          std::memcpy(&x, &d, 8);
        }
        ++p;
      } else if (!number(x)) {
        return fail("unsupported initializer of '" + v.name + "'", line);
      }
      vals.push_back(x);
    } while (depth > 0);
    v.init.assign(v.size, 0);
    for (size_t i = 0; i < vals.size() && (i + 1) * tySize(ty) <= v.size; ++i)
      std::memcpy(v.init.data() + i * tySize(ty), &vals[i], tySize(ty));
  }
  if (!expect(";"))
    return false;
  if (space == Space::Shared) {
    if (unsized) {
      v.externDynamic = true;
      m.dynSharedAlign = std::max(m.dynSharedAlign, v.align);
    } else {
      m.staticShared = (m.staticShared + v.align - 1) / v.align * v.align;
      v.offset = m.staticShared;
      m.staticShared += v.size;
    }
  } else if (space == Space::Local) {
    m.localBytes = (m.localBytes + v.align - 1) / v.align * v.align;
    v.offset = m.localBytes;
    m.localBytes += v.size;
  } else if (space == Space::Param) {
    m.paramBytes = (m.paramBytes + v.align - 1) / v.align * v.align;
    v.offset = m.paramBytes;
    m.paramBytes += v.size;
  } else if (!isExtern) {
    v.address = alloc(v.size);
    if (!v.address)
      return fail("cannot allocate device memory for '" + v.name + "'", line);
  } else {
    return fail("extern variable '" + v.name + "' is not defined", line);
  }
  int idx = (int)m.vars.size();
  m.vars.push_back(std::move(v));
  if (moduleScope)
    m.varIndex[m.vars.back().name] = idx;
  else
    scopes.back().vars[m.vars.back().name] = idx;
  return true;
}

bool Parser::parseParams(Function &f, bool kernel, bool isReturn) {
  if (!expect("("))
    return false;
  while (!accept(")")) {
    accept(",");
    if (!expect(".param"))
      return false;
    size_t before = m.vars.size();
    uint64_t savedBytes = m.paramBytes;
    if (kernel)
      m.paramBytes = f.kernelParamBytes;
    // parseVariable wants a trailing ';': parameters end with ',' or ')'.
    std::vector<Token> &toks = const_cast<std::vector<Token> &>(t);
    size_t q = p;
    while (toks[q].text != "," && toks[q].text != ")")
      ++q;
    Token saved = toks[q];
    toks[q].text = ";";
    bool ok = parseVariable(Space::Param, false, false);
    toks[q] = saved;
    --p; // re-read the ',' or ')'
    if (!ok || m.vars.size() != before + 1)
      return false;
    Variable &v = m.vars.back();
    if (kernel) {
      f.kernelParamBytes = m.paramBytes;
      m.paramBytes = savedBytes;
    }
    if (isReturn) {
      f.retOffset = (int64_t)v.offset;
      f.retSize = v.size;
    } else {
      f.params.push_back({v.offset, v.size});
      f.paramAlign.push_back(v.align);
      f.paramTy.push_back(v.ty);
      f.paramIsPtr.push_back(v.ptr);
    }
  }
  return true;
}

bool Parser::parseFunction(bool isEntry) {
  Function f;
  f.isEntry = isEntry;
  f.line = peek().line;
  scopes.emplace_back();
  if (!isEntry && is("(") && !parseParams(f, false, true))
    return false;
  f.name = peek().text;
  ++p;
  if (is("(") && !parseParams(f, isEntry, false))
    return false;
  while (peek().kind == Token::Ident && peek().text[0] == '.') {
    std::string w = peek().text;
    ++p;
    uint32_t *dims = w == ".maxntid"   ? f.maxntid
                     : w == ".reqntid" ? f.reqntid
                                       : nullptr;
    for (int i = 0; i < 3 && peek().kind == Token::Number; ++i) {
      int64_t v;
      number(v);
      if (dims)
        dims[i] = (uint32_t)v;
      if (!accept(","))
        break;
    }
  }
  auto existing = m.funcIndex.find(f.name);
  int idx;
  if (existing != m.funcIndex.end()) {
    idx = existing->second;
    if (is("{"))
      m.funcs[idx] = f;
  } else {
    idx = (int)m.funcs.size();
    m.funcs.push_back(f);
    m.funcIndex[f.name] = idx;
  }
  // Parameters are visible in the body by name.
  for (auto &kv : scopes.back().vars) {
    m.vars[kv.second].offset += 0;
    if (isEntry)
      m.vars[kv.second].space = Space::Param;
  }
  if (accept(";")) {
    scopes.pop_back();
    return true;
  }
  curFunc = idx;
  labels.clear();
  labelFixups.clear();
  m.funcs[idx].firstPc = (uint32_t)m.code.size();
  if (!expect("{") || !parseBody())
    return false;
  m.funcs[idx].endPc = (uint32_t)m.code.size();
  for (const Fixup &fx : labelFixups) {
    auto it = labels.find(fx.name);
    if (it == labels.end())
      return fail("unknown label '" + fx.name + "'", fx.line);
    m.code[fx.pc].target = it->second;
  }
  // A function falls off its end only through `ret`: add one.
  Instr ret;
  std::string e;
  ret.line = m.funcs[idx].line;
  ret.func = idx;
  decodeInstr(ret, "ret", {}, e);
  m.code.push_back(ret);
  m.text.push_back("ret");
  m.funcs[idx].endPc = (uint32_t)m.code.size();
  scopes.pop_back();
  curFunc = -1;
  return true;
}

bool Parser::parseReg() {
  Ty ty = Ty::None;
  unsigned vecN = 1;
  while (peek().text.size() && peek().text[0] == '.') {
    if (is(".v2") || is(".v4"))
      vecN = peek().text[2] - '0';
    else
      ty = parseTypeWord(peek().text);
    ++p;
  }
  if (ty == Ty::None || vecN != 1 || ty == Ty::B128)
    return fail("unsupported .reg declaration");
  do {
    std::string name = peek().text;
    ++p;
    if (accept("<")) {
      int64_t n;
      if (!number(n) || !expect(">"))
        return false;
      scopes.back().ranges[name] = {(int)m.numRegs, (int)n};
      for (int64_t i = 0; i < n; ++i)
        m.regNames.push_back(name + std::to_string(i));
      m.numRegs += (uint32_t)n;
    } else {
      scopes.back().regs[name] = (int)m.numRegs++;
      m.regNames.push_back(name);
    }
  } while (accept(","));
  return expect(";");
}

bool Parser::parseBody() {
  int depth = 1;
  while (depth > 0) {
    const Token &tok = peek();
    if (tok.kind == Token::End)
      return fail("unexpected end of file in a function body");
    if (accept("{")) {
      ++depth;
      scopes.emplace_back();
      continue;
    }
    if (accept("}")) {
      if (--depth > 0)
        scopes.pop_back();
      continue;
    }
    const std::string &w = tok.text;
    if (w == ".reg") {
      ++p;
      if (!parseReg())
        return false;
    } else if (w == ".local" || w == ".shared" || w == ".param") {
      ++p;
      Space s = w == ".local"    ? Space::Local
                : w == ".shared" ? Space::Shared
                                 : Space::Param;
      if (!parseVariable(s, false, false))
        return false;
    } else if (w == ".pragma") {
      while (peek().kind != Token::End && !accept(";"))
        ++p;
    } else if (w == ".loc" || w == ".file") {
      skipLine();
    } else if (tok.kind == Token::Ident && peek(1).text == ":") {
      labels[w] = (int)m.code.size();
      p += 2;
    } else if (!parseInstruction()) {
      return false;
    }
  }
  return true;
}

} // namespace detail

bool parsePtx(const std::string &text, Module &mod, const VarAllocator &alloc,
              std::string &error) {
  std::vector<Token> tokens;
  if (!lexPtx(text, tokens, error))
    return false;
  detail::Parser parser(tokens, mod, alloc, error);
  return parser.run();
}

} // namespace gptc::emu
