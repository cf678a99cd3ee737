//===- PtxParserImpl.h - The PTX reader's state -----------------*- C++ -*-===//
//
// The recursive-descent reader shared by PtxParser.cpp (module, variables,
// functions, declarations) and PtxInstructionParser.cpp (instructions and
// their operands).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_PTXPARSERIMPL_H
#define GPTC_EMU_PTXPARSERIMPL_H

#include "emu/PtxLexer.h"
#include "emu/PtxParser.h"

#include <algorithm>
#include <map>

namespace gptc::emu::detail {

/// Names visible in one `{ }` scope.
struct Scope {
  std::map<std::string, int> regs;
  std::map<std::string, std::pair<int, int>> ranges; ///< %r<N>: base, N
  std::map<std::string, int> vars;
};

class Parser {
public:
  Parser(const std::vector<Token> &toks, Module &m, const VarAllocator &alloc,
         std::string &err)
      : t(toks), m(m), alloc(alloc), err(err) {}
  bool run();

private:
  const std::vector<Token> &t;
  size_t p = 0;
  Module &m;
  const VarAllocator &alloc;
  std::string &err;
  std::vector<Scope> scopes;
  std::map<std::string, int> labels;
  struct Fixup {
    uint32_t pc;
    std::string name;
    uint32_t line;
  };
  std::vector<Fixup> labelFixups, callFixups;
  int curFunc = -1;

  const Token &peek(size_t k = 0) const {
    return t[std::min(p + k, t.size() - 1)];
  }
  bool is(const char *s, size_t k = 0) const { return peek(k).text == s; }
  bool accept(const char *s) {
    if (!is(s))
      return false;
    ++p;
    return true;
  }
  bool fail(const std::string &what, uint32_t line = 0) {
    if (err.empty())
      err =
          "PTX line " + std::to_string(line ? line : peek().line) + ": " + what;
    return false;
  }
  bool expect(const char *s) {
    return accept(s) || fail(std::string("expected '") + s + "', found '" +
                             peek().text + "'");
  }
  bool number(int64_t &v);
  bool parseVariable(Space space, bool isExtern, bool moduleScope);
  bool parseFunction(bool isEntry);
  bool parseParams(Function &f, bool kernel, bool isReturn);
  bool parseBody();
  bool parseReg();
  bool parseInstruction();
  bool parseOperand(Operand &o, Instr &in);
  bool parseAddress(Operand &o);
  int findReg(const std::string &name) const;
  int findVar(const std::string &name) const;
  void skipLine() {
    uint32_t line = peek().line;
    while (peek().kind != Token::End && peek().line == line)
      ++p;
  }
};

} // namespace gptc::emu::detail

#endif
