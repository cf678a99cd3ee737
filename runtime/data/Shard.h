//===- Shard.h - Token shards (.bin) ----------------------------*- C++ -*-===//
//
// The token shard format of llm.c / modded-nanogpt (FineWeb .bin):
//
//   header  256 little-endian int32 (1024 bytes):
//           [0] = 20240520 (magic), [1] = 1 (version), [2] = token count n,
//           the rest 0
//   body    n uint16 token ids
//
// The file size is exactly 1024 + 2n; readers reject anything else. Errors are
// returned as one line naming the file and what is wrong (no exceptions).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_SHARD_H
#define GPTC_RUNTIME_DATA_SHARD_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace data {

constexpr int32_t kShardMagic = 20240520;
constexpr int32_t kShardVersion = 1;
constexpr size_t kShardHeaderInts = 256;
constexpr size_t kShardHeaderBytes = kShardHeaderInts * sizeof(int32_t);
/// The header stores the count as int32.
constexpr uint64_t kMaxShardTokens = 0x7fffffff;

/// Writes `n` tokens to `path` atomically: the data goes to `path.tmp.PID`,
/// which is then renamed over `path`. Returns false and sets `error`.
bool writeShard(const std::string &path, const uint16_t *tokens, size_t n,
                std::string &error);
inline bool writeShard(const std::string &path,
                       const std::vector<uint16_t> &tokens,
                       std::string &error) {
  return writeShard(path, tokens.data(), tokens.size(), error);
}

/// Reads and checks the header of `path` and that the file size matches it;
/// sets `numTokens`. Returns false and sets `error`.
bool readShardHeader(const std::string &path, uint64_t &numTokens,
                     std::string &error);

/// Reads a whole shard into `tokens` (checked as readShardHeader does).
bool readShard(const std::string &path, std::vector<uint16_t> &tokens,
               std::string &error);

/// A checked, read-only memory mapping of a shard's tokens.
class Shard {
public:
  Shard() = default;
  ~Shard() { close(); }
  Shard(Shard &&other) noexcept;
  Shard &operator=(Shard &&other) noexcept;
  Shard(const Shard &) = delete;
  Shard &operator=(const Shard &) = delete;

  /// Maps `path` after checking header and size. Returns false and sets
  /// `error`; the shard is then closed.
  bool open(const std::string &path, std::string &error);
  void close();

  bool isOpen() const { return base != nullptr; }
  const std::string &path() const { return filePath; }
  size_t size() const { return numTokens; }
  const uint16_t *tokens() const { return tokenPtr; }
  uint16_t operator[](size_t i) const { return tokenPtr[i]; }
  /// Reads tokens [start, start + count) with pread, not through the
  /// mapping: a file that shrank since it was opened is an error here,
  /// where reading the mapping past the new end would raise SIGBUS.
  bool read(uint64_t start, size_t count, uint16_t *out,
            std::string &error) const;

private:
  std::string filePath;
  int fd = -1;          // kept open for read()
  void *base = nullptr; // the mapping (header + body)
  size_t mappedBytes = 0;
  const uint16_t *tokenPtr = nullptr;
  size_t numTokens = 0;
};

/// Expands a glob pattern into the sorted list of matching paths. A pattern
/// without wildcards names one file. Returns false and sets `error` when
/// nothing matches.
bool expandShardGlob(const std::string &pattern,
                     std::vector<std::string> &paths, std::string &error);

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_SHARD_H
