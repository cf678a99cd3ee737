//===- TokenizerRecord.h - Which tokenizer made a run's ids -----*- C++ -*-===//
//
// Token ids mean nothing without their tokenizer, so it travels with them:
//
//   - `gptc data` writes DIR/PREFIX.tokenizer beside the PREFIX_*.bin
//     shards it makes: one line, `bytes` (the byte tokenizer) or
//     `bpe SHA256 FILE` (the tiktoken-format vocabulary, absolute path);
//   - `gptc train` reads the record beside its first training shard and
//     writes it into every checkpoint.json ("tokenizer");
//   - `gptc sample` decodes with the recorded vocabulary (its SHA-256
//     checked), refuses a BPE model without one, and refuses a --tokenizer
//     that is not the one the model was trained with.
//
// Shards without a record (FineWeb's, or made by an older gptc) are
// `unknown`: sampling then decodes bytes unless told otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_TOKENIZERRECORD_H
#define GPTC_RUNTIME_TOKENIZERRECORD_H

#include <cstdint>
#include <string>

namespace gptc {
namespace runtime {

struct TokenizerRecord {
  enum class Kind { unknown, bytes, bpe };
  Kind kind = Kind::unknown;
  std::string file;   ///< bpe: the vocabulary, absolute
  std::string sha256; ///< bpe: of its bytes

  /// "bytes", "the BPE vocabulary FILE (sha256 0123abcd...)" or "unknown".
  std::string describe() const;
};

/// DIR/PREFIX.tokenizer.
std::string tokenizerRecordPath(const std::string &dir,
                                const std::string &prefix);

/// Whether DIR/PREFIX.tokenizer is absent or one gptc data wrote (its first
/// line says so): another file of that name is someone's and is not
/// replaced (false, `error` set).
bool mayWriteTokenizerRecord(const std::string &dir, const std::string &prefix,
                             std::string &error);

/// Writes DIR/PREFIX.tokenizer (through a temporary, renamed into place).
bool writeTokenizerRecord(const std::string &dir, const std::string &prefix,
                          const TokenizerRecord &record, std::string &error);

/// DIR/PREFIX.tokenizer for a shard DIR/PREFIX_{train,val}_N.bin; empty
/// for a shard not named so.
std::string tokenizerRecordPathOfShard(const std::string &shardPath);

/// The record beside a shard DIR/PREFIX_{train,val}_N.bin: unknown when
/// there is none or it cannot be read.
TokenizerRecord tokenizerRecordOfShard(const std::string &shardPath);

/// The record of the vocabulary at `file`: its absolute path and SHA-256.
/// The largest BPE vocabulary file gptc reads (cl100k_base is 1.7 MB).
constexpr uint64_t kMaxVocabularyFileBytes = uint64_t(256) << 20;

bool bpeRecordOf(const std::string &file, TokenizerRecord &record,
                 std::string &error);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_TOKENIZERRECORD_H
