//===- BpeTokenizer.cpp - GPT-2 style byte-pair encoding ------------------===//

#include "runtime/data/BpeTokenizer.h"

#include <clocale>
#include <cstring>
#include <cwctype>
#include <fstream>
#include <functional>
#include <locale.h>
#include <queue>
#include <sys/stat.h>

namespace gptc {
namespace data {

namespace {

int base64Value(char c) {
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

/// Standard base64 with '=' padding; false on anything else.
bool decodeBase64(std::string_view in, std::string &out) {
  out.clear();
  if (in.empty() || in.size() % 4 != 0)
    return false;
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad || (v[k] = base64Value(c)) < 0)
        return false;
    }
    uint32_t n = uint32_t(v[0]) << 18 | uint32_t(v[1]) << 12 |
                 uint32_t(v[2]) << 6 | uint32_t(v[3]);
    out.push_back(char(n >> 16));
    if (pad < 2)
      out.push_back(char(n >> 8 & 0xff));
    if (pad < 1)
      out.push_back(char(n & 0xff));
  }
  return true;
}

/// The code point at `text[i]` and its length in bytes; a byte that does
/// not start a valid UTF-8 sequence is U+FFFD (a symbol), length 1.
uint32_t codePoint(std::string_view text, size_t i, size_t &len) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  len = 1;
  int extra = c < 0x80           ? 0
              : (c >> 5) == 0x6  ? 1
              : (c >> 4) == 0xe  ? 2
              : (c >> 3) == 0x1e ? 3
                                 : -1;
  if (extra == 0)
    return c;
  if (extra < 0 || i + size_t(extra) >= text.size())
    return 0xfffd;
  uint32_t cp = c & (0x3fu >> extra);
  for (int k = 1; k <= extra; ++k) {
    unsigned char d = static_cast<unsigned char>(text[i + size_t(k)]);
    if ((d & 0xc0) != 0x80)
      return 0xfffd;
    cp = cp << 6 | (d & 0x3f);
  }
  len = size_t(extra) + 1;
  return cp;
}

locale_t utf8Locale() {
  static locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
  return loc;
}

enum class Class { Letter, Number, Space, Other };

Class classify(uint32_t cp) {
  if (cp < 0x80) {
    char c = char(cp);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      return Class::Letter;
    if (c >= '0' && c <= '9')
      return Class::Number;
    if (c == ' ' || (c >= '\t' && c <= '\r'))
      return Class::Space;
    return Class::Other;
  }
  locale_t loc = utf8Locale();
  if (loc && iswspace_l(wint_t(cp), loc))
    return Class::Space;
  if (loc && iswalpha_l(wint_t(cp), loc))
    return Class::Letter;
  if (cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
      (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
      cp == 0x202f || cp == 0x205f || cp == 0x3000)
    return Class::Space; // \s in Unicode, whatever the locale says
  return Class::Other;
}

} // namespace

bool BpeTokenizer::load(const std::string &path, std::string &error) {
  ranks.clear();
  // Checked before opening: reading a FIFO would wait for a writer.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    error = path + ": the tokenizer is not a regular file" +
            (S_ISFIFO(st.st_mode)  ? " (a FIFO)"
             : S_ISDIR(st.st_mode) ? " (a directory)"
                                   : "");
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::vector<bool> rankSeen(65535, false);
  std::string line, bytes;
  int64_t maxRank = -1;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    std::string at = path + ":" + std::to_string(lineNo) + ": ";
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      continue;
    size_t space = line.find(' ');
    if (space == std::string::npos ||
        !decodeBase64(line.substr(0, space), bytes)) {
      error = at + "expected a base64 token, a space and its rank";
      return false;
    }
    std::string digits = line.substr(space + 1);
    if (digits.empty() || digits.size() > 5 ||
        digits.find_first_not_of("0123456789") != std::string::npos ||
        std::stol(digits) >= 65535) {
      error = at + "rank '" + digits + "' is not an integer in [0, 65534] " +
              "(ids are stored as uint16 in shards)";
      return false;
    }
    long rank = std::stol(digits);
    if (rankSeen[size_t(rank)]) {
      error = at + "rank " + digits + " is given twice";
      return false;
    }
    rankSeen[size_t(rank)] = true;
    if (!ranks.emplace(bytes, uint16_t(rank)).second) {
      error = at + "the token is given twice";
      return false;
    }
    maxRank = std::max<int64_t>(maxRank, rank);
  }
  for (int b = 0; b < 256; ++b)
    if (!ranks.count(std::string(1, char(b)))) {
      error = path + ": byte " + std::to_string(b) + " is not a token " +
              "(a byte-level BPE vocabulary has all 256)";
      return false;
    }
  if (maxRank + 1 > 65535) {
    error = path + ": <|endoftext|> would be id 65535, past uint16";
    return false;
  }
  eot = uint16_t(maxRank + 1);
  byId.assign(size_t(eot), std::string());
  for (const auto &[bytes, id] : ranks)
    byId[id] = bytes;
  return true;
}

std::vector<std::string_view> BpeTokenizer::split(std::string_view text) {
  std::vector<std::string_view> pieces;
  const size_t n = text.size();
  // The class and length of the code point at byte i.
  auto at = [&](size_t i, size_t &len) {
    return i < n ? classify(codePoint(text, i, len)) : (len = 0, Class::Other);
  };
  // The end of the run of class `c` starting at i.
  auto run = [&](size_t i, Class c) {
    size_t len = 0;
    while (i < n && at(i, len) == c)
      i += len;
    return i;
  };
  size_t i = 0;
  while (i < n) {
    size_t len = 0;
    // '(?:[sdmt]|ll|ve|re)
    if (text[i] == '\'' && i + 1 < n) {
      char a = text[i + 1], b = i + 2 < n ? text[i + 2] : '\0';
      size_t l = (a == 's' || a == 'd' || a == 'm' || a == 't') ? 2
                 : ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') ||
                    (a == 'r' && b == 'e'))
                     ? 3
                     : 0;
      if (l) {
        pieces.push_back(text.substr(i, l));
        i += l;
        continue;
      }
    }
    // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
    size_t j = text[i] == ' ' ? i + 1 : i;
    Class c = at(j, len);
    if (j < n && c != Class::Space) {
      size_t end = run(j, c);
      pieces.push_back(text.substr(i, end - i));
      i = end;
      continue;
    }
    // `\s+(?!\S)|\s+`: a whitespace run, less its last character when a
    // non-space follows and the run is longer than one.
    size_t end = run(i, Class::Space);
    if (end < n) {
      size_t last = i, l = 0;
      for (size_t k = i; k < end; k += l) {
        at(k, l);
        last = k;
      }
      if (last > i)
        end = last;
    }
    pieces.push_back(text.substr(i, end - i));
    i = end;
  }
  return pieces;
}

void BpeTokenizer::mergePiece(std::string_view piece,
                              std::vector<uint16_t> &out) const {
  if (int64_t r = rankOf(piece); r >= 0) {
    out.push_back(uint16_t(r));
    return;
  }
  // The parts are a linked list over their first bytes: part k is
  // piece[k, next[k]) while alive[k]. Every adjacent pair whose joined
  // bytes are a token waits in a heap by (rank, first byte): the lowest
  // rank first, the leftmost on a tie -- the pair a scan of all pairs would
  // merge -- so a piece of n bytes takes O(n log n), not O(n^2). A merge
  // makes at most two new pairs; pairs it ended are skipped when popped.
  const size_t n = piece.size();
  std::vector<size_t> next(n), prev(n);
  std::vector<bool> alive(n, true);
  for (size_t k = 0; k < n; ++k) {
    next[k] = k + 1;
    prev[k] = k - 1; // size_t(-1) before the first
  }
  struct Pair {
    int64_t rank;
    size_t left, mid, end; ///< piece[left, mid) + piece[mid, end)
    bool operator>(const Pair &o) const {
      return rank != o.rank ? rank > o.rank : left > o.left;
    }
  };
  std::priority_queue<Pair, std::vector<Pair>, std::greater<Pair>> heap;
  auto consider = [&](size_t left, size_t mid, size_t end) {
    if (int64_t r = rankOf(piece.substr(left, end - left)); r >= 0)
      heap.push({r, left, mid, end});
  };
  for (size_t k = 0; k + 1 < n; ++k)
    consider(k, k + 1, k + 2);
  while (!heap.empty()) {
    Pair p = heap.top();
    heap.pop();
    if (!alive[p.left] || next[p.left] != p.mid || !alive[p.mid] ||
        next[p.mid] != p.end)
      continue; // a merge since changed one of its parts
    alive[p.mid] = false;
    next[p.left] = p.end;
    if (p.end < n)
      prev[p.end] = p.left;
    if (p.left > 0)
      consider(prev[p.left], p.left, p.end);
    if (p.end < n)
      consider(p.left, p.end, next[p.end]);
  }
  for (size_t k = 0; k < n; k = next[k])
    out.push_back(uint16_t(rankOf(piece.substr(k, next[k] - k))));
}

void BpeTokenizer::encode(std::string_view text,
                          std::vector<uint16_t> &out) const {
  for (std::string_view piece : split(text))
    mergePiece(piece, out);
}

} // namespace data
} // namespace gptc
