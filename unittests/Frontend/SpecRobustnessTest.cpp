//===- SpecRobustnessTest.cpp - Hostile input never crashes ---------------===//
//
// Malformed, malicious and random input must give one clean one-line error
// (or, for the rare random input that is still a valid spec, a spec) - never
// a crash, an abort or an escaping exception.
//
//===----------------------------------------------------------------------===//

#include "SpecTestUtil.h"

#include <random>

using namespace gptc;
using namespace gptc::test;

namespace {

void expectCleanError(const ParseResult &r, const std::string &what) {
  EXPECT_FALSE(r.ok) << what;
  EXPECT_FALSE(r.error.message.empty()) << what;
  EXPECT_FALSE(r.error.loc.file.empty()) << what;
  EXPECT_EQ(r.error.str().find('\n'), std::string::npos) << r.error.str();
}

std::string repeat(const std::string &s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

TEST(SpecRobustness, MalformedDocuments) {
  const std::pair<const char *, std::string> cases[] = {
      {"empty", ""},
      {"comment only", "# nothing\n"},
      {"null", "~\n"},
      {"scalar", "just words\n"},
      {"list", "- a\n- b\n"},
      {"flow list", "[1, 2]"},
      {"two documents", "name: a\n---\nname: b\n"},
      {"unclosed flow map", "{"},
      {"lone colon", ":"},
      {"unterminated quote", "name: 'abc\n"},
      {"bad escape", "name: \"\\q\"\n"},
      {"unknown alias", "name: *nope\n"},
      {"complex key", "? [a, b]\n: 1\n"},
      {"explicit tag", "name: !!str x\n"},
      {"custom tag", "name: !mine x\n"},
      {"binary", std::string("\x00\x01\x02\xff\xfe name", 9)},
      {"invalid utf-8", "name: \xc3\x28\nmodel: \xff\n"},
      {"BOM and junk", "\xef\xbb\xbf\x01\x02:\n"},
      {"tabs", "model:\n\tn_layer: 2\n"},
      {"alias cycle", "a: &x [*x]\n"},
      {"deep flow nesting", repeat("[", 5000) + repeat("]", 5000)},
      {"deep block nesting",
       [] {
         std::string s;
         for (int i = 0; i < 300; ++i)
           s += std::string(i, ' ') + "k:\n";
         return s;
       }()},
      {"long key", std::string(100000, 'k') + ": 1\n"},
      {"newline in key", "\"a\\nb\": 1\n"},
  };
  for (const auto &[name, text] : cases)
    expectCleanError(parse(text), name);
}

TEST(SpecRobustness, BillionLaughsIsCapped) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  std::string prev = "a";
  for (char c = 'b'; c <= 'j'; ++c) {
    std::string name(1, c);
    text += name + ": &" + name + " [" + repeat("*" + prev + ", ", 9) + "*" +
            prev + "]\n";
    prev = name;
  }
  ParseResult r = parse(text);
  expectCleanError(r, "billion laughs");
  EXPECT_NE(r.error.message.find("too large"), std::string::npos)
      << r.error.str();
}

TEST(SpecRobustness, KeysAndValuesInMessagesArePrintable) {
  ParseResult r = parseBase({"model.activation=\"a\\nb\\x01\""});
  expectCleanError(r, "escaped value");
  EXPECT_NE(r.error.message.find("'a\\nb\\x01'"), std::string::npos)
      << r.error.str();
}

/// Random byte edits of a valid spec.
TEST(SpecRobustness, MutatedSpecs) {
  std::mt19937 rng(20241008);
  const std::string base = kBaseSpec;
  const std::string alphabet =
      ":-[]{},&*!|>'\"#%@`\t\n ~?0123456789abcxyz.\x01\xff";
  int valid = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = base;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (text.size() + 1);
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
      case 0:
        text.insert(pos, 1, c);
        break;
      case 1:
        if (pos < text.size())
          text.erase(pos, 1 + rng() % 8);
        break;
      default:
        if (pos < text.size())
          text[pos] = c;
        break;
      }
    }
    ParseResult r = parse(text);
    if (r.ok) {
      ++valid;
      continue;
    }
    ASSERT_FALSE(r.error.message.empty()) << text;
    ASSERT_EQ(r.error.str().find('\n'), std::string::npos) << r.error.str();
    ASSERT_GE(r.error.loc.line, 0);
  }
  // Most edits break the spec; some (in a comment-free value) do not.
  EXPECT_LT(valid, 3000);
}

/// Random bytes, and random --set arguments.
TEST(SpecRobustness, RandomBytesAndOverrides) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 500; ++iter) {
    std::string text(rng() % 200, '\0');
    for (char &c : text)
      c = static_cast<char>(rng());
    expectCleanError(parse(text), "random bytes");
  }
  const std::string alphabet = "model.n_layer=[]{}:,'\"\n\t\x01 0123";
  for (int iter = 0; iter < 1000; ++iter) {
    std::string arg(rng() % 24, ' ');
    for (char &c : arg)
      c = alphabet[rng() % alphabet.size()];
    ParseResult r = parseBase({arg});
    if (!r.ok) {
      ASSERT_EQ(r.error.str().find('\n'), std::string::npos) << r.error.str();
    }
  }
}

} // namespace
