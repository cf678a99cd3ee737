//===- BpeTrainer.h - Learning a byte-level BPE vocabulary ------*- C++ -*-===//
//
// Learns a byte-level BPE vocabulary for BpeTokenizer (tiktoken's format):
//
//   1. Every text is pre-tokenised with BpeTokenizer::split (GPT-2's
//      pattern) and each distinct piece is counted. Merges never cross a
//      piece boundary.
//   2. Ranks 0..255 are the single bytes 0..255 in byte order; each
//      distinct piece starts as the sequence of its bytes' ids.
//   3. Until `numTokens` ranks exist: over all distinct pieces, weighted by
//      their counts, count the adjacent pairs of ids and choose the pair
//      with the highest count; ties go to the smallest joined byte string
//      (lexicographic by unsigned bytes), then to the smallest left id. If
//      no pair occurs at least twice, training stops early with fewer
//      tokens (not an error).
//   4. If the pair's joined bytes are not yet a token, they become the next
//      rank; if they already are one (another pair joined to the same bytes
//      earlier), the pair is merged into that id and no rank is added.
//      Every non-overlapping occurrence of the pair is merged, left to
//      right, in every piece.
//
// The choice depends only on the counts and the bytes, so the result does
// not depend on the order of the texts or of any hash map.
//
// Cost: pair counts are kept incrementally. Each pair knows the pieces it
// may occur in, so a merge rewrites only those pieces and applies the
// count changes around each occurrence; the best pair comes from a max-heap
// whose entries are checked against the current count when popped (stale
// entries are dropped). A merge costs the length of the pieces it touches,
// not a scan of every pair.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_BPETRAINER_H
#define GPTC_RUNTIME_DATA_BPETRAINER_H

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gptc {
namespace data {

/// The smallest and largest `numTokens` trainBpe accepts: the 256 bytes,
/// and the most ranks whose <|endoftext|> (one past the largest rank) still
/// fits a uint16 shard id.
constexpr int64_t kBpeMinTokens = 256;
constexpr int64_t kBpeMaxTokens = 65535;

struct BpeTrainResult {
  /// The bytes of rank r; tokens[0..255] are the single bytes 0..255.
  std::vector<std::string> tokens;
};

/// Learns ranks 256.. by merging the most frequent adjacent pair of tokens
/// within the GPT-2 pre-tokenised pieces (BpeTokenizer::split) of `texts`,
/// until `numTokens` ranks exist or no pair occurs twice. False, with
/// `error` set, only when `numTokens` is outside [256, 65535]. `progress`,
/// if set, is called about every 1% of the ranks to learn and once at the
/// end, with the ranks learned so far (past the 256 bytes) and the ranks
/// wanted; at most 101 calls, the last one's `done` less than `total` when
/// training stopped early.
bool trainBpe(
    const std::vector<std::string_view> &texts, int64_t numTokens,
    BpeTrainResult &result, std::string &error,
    const std::function<void(int64_t done, int64_t total)> &progress = {});

/// Writes `tokens` in tiktoken's format (per rank: the base64 of its bytes,
/// a space, the rank, '\n') through `path.tmp-PID`, then renamed over
/// `path`. False with `error` naming the path if writing fails, a token is
/// empty, or there are more than 65535 tokens.
bool writeTiktoken(const std::string &path,
                   const std::vector<std::string> &tokens, std::string &error);

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_BPETRAINER_H
