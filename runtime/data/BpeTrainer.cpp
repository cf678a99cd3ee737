//===- BpeTrainer.cpp - Learning a byte-level BPE vocabulary --------------===//

#include "runtime/data/BpeTrainer.h"

#include "runtime/data/BpeTokenizer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <unistd.h>

namespace gptc {
namespace data {

namespace {

using Id = int32_t;

uint64_t pairKey(Id left, Id right) {
  return uint64_t(uint32_t(left)) << 32 | uint32_t(right);
}
/// No pair has this key: ids are below 65535.
constexpr uint64_t kNoPair = ~uint64_t(0);

/// Compares the bytes of a + b with those of c + d as unsigned bytes:
/// negative, zero or positive.
int compareJoined(std::string_view a, std::string_view b, std::string_view c,
                  std::string_view d) {
  size_t n1 = a.size() + b.size(), n2 = c.size() + d.size();
  size_t n = std::min(n1, n2);
  for (size_t i = 0; i < n; ++i) {
    auto x = static_cast<unsigned char>(i < a.size() ? a[i] : b[i - a.size()]);
    auto y = static_cast<unsigned char>(i < c.size() ? c[i] : d[i - c.size()]);
    if (x != y)
      return x < y ? -1 : 1;
  }
  return n1 < n2 ? -1 : n1 > n2 ? 1 : 0;
}

/// A distinct pre-tokenised piece: its current ids and how often it occurs.
struct Piece {
  std::vector<Id> ids;
  int64_t count;
};

/// An adjacent pair's total count over all pieces, and the pieces it may
/// occur in (a superset: entries are not removed when a merge takes the
/// pair out of a piece, and may repeat).
struct PairInfo {
  int64_t count = 0;
  std::vector<int32_t> pieces;
};

/// A heap entry: the pair's count when it was pushed.
struct Candidate {
  int64_t count;
  Id left, right;
};

class Trainer {
public:
  explicit Trainer(std::vector<std::string> &tokens) : tokens(tokens) {}

  void addPieces(const std::vector<std::string_view> &texts);
  /// Learns until `numTokens` ranks exist or no pair occurs twice.
  void run(int64_t numTokens,
           const std::function<void(int64_t, int64_t)> &progress);

private:
  /// True if `a` is chosen after `b`: a smaller count, then larger joined
  /// bytes, then a larger left id.
  bool below(const Candidate &a, const Candidate &b) const {
    if (a.count != b.count)
      return a.count < b.count;
    int c = compareJoined(tokens[a.left], tokens[a.right], tokens[b.left],
                          tokens[b.right]);
    if (c != 0)
      return c > 0;
    return a.left > b.left;
  }
  void push(Id left, Id right, int64_t count) {
    heap.push_back({count, left, right});
    std::push_heap(
        heap.begin(), heap.end(),
        [this](const auto &a, const auto &b) { return below(a, b); });
  }
  /// Pops entries until one matches its pair's current count; false when
  /// the heap runs out.
  bool popBest(Candidate &best);
  /// Adds `delta` to the count of (left, right), recording piece `piece` for
  /// it when the pair is being created there.
  void addPair(Id left, Id right, int64_t delta, int32_t piece);
  /// Merges every non-overlapping (left, right) in piece `p` into `merged`,
  /// left to right, updating the counts of the pairs around each occurrence.
  void mergeIn(int32_t p, Id left, Id right, Id merged);

  std::vector<std::string> &tokens;
  std::unordered_map<std::string, Id> idOf;
  std::vector<Piece> pieces;
  std::unordered_map<uint64_t, PairInfo> pairs;
  std::vector<Candidate> heap;
  /// The pair being merged (its counts are not updated: it is gone) and the
  /// pairs whose counts the current merge changed.
  uint64_t mergingKey = kNoPair;
  std::vector<uint64_t> changed;
};

void Trainer::addPieces(const std::vector<std::string_view> &texts) {
  std::unordered_map<std::string_view, int64_t> counts;
  for (std::string_view text : texts)
    for (std::string_view piece : BpeTokenizer::split(text))
      if (piece.size() > 1) // a single byte has no pair to merge
        ++counts[piece];
  pieces.reserve(counts.size());
  for (const auto &[bytes, count] : counts) {
    Piece piece;
    piece.count = count;
    piece.ids.reserve(bytes.size());
    for (char c : bytes)
      piece.ids.push_back(Id(static_cast<unsigned char>(c)));
    pieces.push_back(std::move(piece));
  }
  for (int32_t p = 0; p < int32_t(pieces.size()); ++p) {
    const Piece &piece = pieces[size_t(p)];
    for (size_t i = 0; i + 1 < piece.ids.size(); ++i)
      addPair(piece.ids[i], piece.ids[i + 1], piece.count, p);
  }
  changed.clear();
  heap.reserve(pairs.size());
  for (const auto &[key, info] : pairs)
    heap.push_back({info.count, Id(key >> 32), Id(key & 0xffffffffu)});
  std::make_heap(heap.begin(), heap.end(),
                 [this](const auto &a, const auto &b) { return below(a, b); });
}

bool Trainer::popBest(Candidate &best) {
  auto cmp = [this](const auto &a, const auto &b) { return below(a, b); };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), cmp);
    best = heap.back();
    heap.pop_back();
    auto it = pairs.find(pairKey(best.left, best.right));
    if (it != pairs.end() && it->second.count == best.count)
      return true;
  }
  return false;
}

void Trainer::addPair(Id left, Id right, int64_t delta, int32_t piece) {
  uint64_t key = pairKey(left, right);
  if (key == mergingKey)
    return;
  PairInfo &info = pairs[key];
  info.count += delta;
  if (delta > 0 && (info.pieces.empty() || info.pieces.back() != piece))
    info.pieces.push_back(piece);
  changed.push_back(key);
}

void Trainer::mergeIn(int32_t p, Id left, Id right, Id merged) {
  std::vector<Id> &ids = pieces[size_t(p)].ids;
  const int64_t count = pieces[size_t(p)].count;
  // In place: ids[0, out) is the merged prefix, ids[i, size) the rest.
  size_t out = 0, i = 0;
  const size_t n = ids.size();
  while (i < n) {
    if (i + 1 < n && ids[i] == left && ids[i + 1] == right) {
      if (out > 0) {
        addPair(ids[out - 1], left, -count, p);
        addPair(ids[out - 1], merged, count, p);
      }
      if (i + 2 < n) {
        addPair(right, ids[i + 2], -count, p);
        addPair(merged, ids[i + 2], count, p);
      }
      ids[out++] = merged;
      i += 2;
    } else {
      ids[out++] = ids[i++];
    }
  }
  ids.resize(out);
}

void Trainer::run(int64_t numTokens,
                  const std::function<void(int64_t, int64_t)> &progress) {
  for (size_t id = 0; id < tokens.size(); ++id)
    idOf.emplace(tokens[id], Id(id));
  const int64_t total = numTokens - kBpeMinTokens;
  int64_t reported = -1; // `done` at the last call
  auto report = [&](bool last) {
    int64_t done = int64_t(tokens.size()) - kBpeMinTokens;
    if (!progress || done == reported)
      return;
    // At every 1% of `total`, and at the end.
    if (last ||
        done * 100 / total > std::max<int64_t>(reported, 0) * 100 / total) {
      progress(done, total);
      reported = done;
    }
  };
  Candidate best;
  while (int64_t(tokens.size()) < numTokens && popBest(best) &&
         best.count >= 2) {
    std::string joined = tokens[size_t(best.left)] + tokens[size_t(best.right)];
    Id merged;
    auto found = idOf.find(joined);
    if (found != idOf.end()) {
      merged = found->second;
    } else {
      merged = Id(tokens.size());
      idOf.emplace(joined, merged);
      tokens.push_back(std::move(joined));
    }
    mergingKey = pairKey(best.left, best.right);
    std::vector<int32_t> where = std::move(pairs[mergingKey].pieces);
    pairs.erase(mergingKey);
    std::sort(where.begin(), where.end());
    where.erase(std::unique(where.begin(), where.end()), where.end());
    changed.clear();
    for (int32_t p : where)
      mergeIn(p, best.left, best.right, merged);
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    for (uint64_t key : changed) {
      auto it = pairs.find(key);
      if (it->second.count <= 0)
        pairs.erase(it);
      else
        push(Id(key >> 32), Id(key & 0xffffffffu), it->second.count);
    }
    report(false);
  }
  report(true);
}

const char kBase64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void appendBase64(std::string_view in, std::string &out) {
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t n = uint32_t(static_cast<unsigned char>(in[i])) << 16 |
                 uint32_t(static_cast<unsigned char>(in[i + 1])) << 8 |
                 uint32_t(static_cast<unsigned char>(in[i + 2]));
    out += kBase64[n >> 18];
    out += kBase64[n >> 12 & 63];
    out += kBase64[n >> 6 & 63];
    out += kBase64[n & 63];
  }
  if (size_t rest = in.size() - i) {
    uint32_t n = uint32_t(static_cast<unsigned char>(in[i])) << 16;
    if (rest == 2)
      n |= uint32_t(static_cast<unsigned char>(in[i + 1])) << 8;
    out += kBase64[n >> 18];
    out += kBase64[n >> 12 & 63];
    out += rest == 2 ? kBase64[n >> 6 & 63] : '=';
    out += '=';
  }
}

} // namespace

bool trainBpe(
    const std::vector<std::string_view> &texts, int64_t numTokens,
    BpeTrainResult &result, std::string &error,
    const std::function<void(int64_t done, int64_t total)> &progress) {
  if (numTokens < kBpeMinTokens || numTokens > kBpeMaxTokens) {
    error = "numTokens " + std::to_string(numTokens) + " out of range [" +
            std::to_string(kBpeMinTokens) + ", " +
            std::to_string(kBpeMaxTokens) + "]";
    return false;
  }
  result.tokens.clear();
  for (int b = 0; b < 256; ++b)
    result.tokens.push_back(std::string(1, char(b)));
  Trainer trainer(result.tokens);
  trainer.addPieces(texts);
  trainer.run(numTokens, progress);
  return true;
}

bool writeTiktoken(const std::string &path,
                   const std::vector<std::string> &tokens, std::string &error) {
  if (tokens.size() > size_t(kBpeMaxTokens)) {
    error = path + ": cannot write " + std::to_string(tokens.size()) +
            " tokens; ranks must stay below 65535";
    return false;
  }
  std::string text;
  for (size_t rank = 0; rank < tokens.size(); ++rank) {
    if (tokens[rank].empty()) {
      error = path + ": token " + std::to_string(rank) + " is empty";
      return false;
    }
    appendBase64(tokens[rank], text);
    text += ' ';
    text += std::to_string(rank);
    text += '\n';
  }
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    error = tmp + ": cannot create: " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() &&
            std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  if (!ok)
    error = tmp + ": cannot write: " + std::strerror(errno);
  if (std::fclose(f) != 0 && ok) {
    error = tmp + ": cannot write: " + std::strerror(errno);
    ok = false;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = path + ": cannot rename " + tmp + " to it: " + std::strerror(errno);
    ok = false;
  }
  if (!ok)
    std::remove(tmp.c_str());
  return ok;
}

} // namespace data
} // namespace gptc
