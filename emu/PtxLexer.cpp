//===- PtxLexer.cpp - Tokens of PTX text ----------------------------------===//

#include "emu/PtxLexer.h"

#include <cctype>

namespace gptc::emu {

static bool identStart(char c) {
  return std::isalpha((unsigned char)c) || c == '_' || c == '%' || c == '$' ||
         c == '.';
}
static bool identChar(char c) {
  return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' ||
         c == '%' || c == ':';
}

bool lexPtx(const std::string &s, std::vector<Token> &out, std::string &error) {
  uint32_t line = 1;
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (std::isspace((unsigned char)c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
        line += s[i++] == '\n';
      i += 2;
      continue;
    }
    Token t;
    t.line = line;
    size_t start = i;
    if (identStart(c)) {
      ++i;
      while (i < n && identChar(s[i])) {
        // `name:` is a label; `::` belongs to cache-hint modifiers.
        if (s[i] == ':' && !(i + 1 < n && s[i + 1] == ':') &&
            !(s[i - 1] == ':'))
          break;
        ++i;
      }
      t.kind = Token::Ident;
    } else if (std::isdigit((unsigned char)c)) {
      ++i;
      while (i < n && (std::isalnum((unsigned char)s[i]) || s[i] == '.' ||
                       ((s[i] == '+' || s[i] == '-') &&
                        (s[i - 1] == 'e' || s[i - 1] == 'E') &&
                        !(s[start + 1] == 'x' || s[start + 1] == 'X' ||
                          s[start + 1] == 'f' || s[start + 1] == 'd'))))
        ++i;
      t.kind = Token::Number;
    } else if (c == '"') {
      ++i;
      while (i < n && s[i] != '"')
        ++i;
      ++i;
      t.kind = Token::String;
    } else if (std::string(",;{}[]()+-|!@<>=:*").find(c) != std::string::npos) {
      ++i;
      t.kind = Token::Punct;
    } else {
      error = "PTX line " + std::to_string(line) + ": unexpected character '" +
              std::string(1, c) + "'";
      return false;
    }
    t.text = s.substr(start, i - start);
    out.push_back(std::move(t));
  }
  Token end;
  end.line = line;
  out.push_back(end);
  return true;
}

} // namespace gptc::emu
