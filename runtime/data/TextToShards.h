//===- TextToShards.h - Text files -> byte-token shards ---------*- C++ -*-===//
//
// Turns plain text into train/val shards for the byte-level tokenizer:
//
//  - a document is a block of lines separated by one or more blank (empty or
//    whitespace-only) lines, or a whole file with `docPerFile`; documents
//    never span files, and keep their bytes (newlines included);
//  - each document is prefixed with BOS (256);
//  - document i (counted over all inputs, in order) goes to val when
//    i % k == 0, k = valStride(valFraction): deterministic, and the first
//    document guarantees a non-empty val split;
//  - the token streams are cut into shards of `shardTokens` tokens (the last
//    one shorter; a document may continue in the next shard), written as
//    PREFIX_val_000000.bin, PREFIX_val_000001.bin, ... and
//    PREFIX_train_000001.bin, PREFIX_train_000002.bin, ... (the FineWeb
//    naming; one val shard in practice).
//
// Shards with the same prefix and naming left over in the output directory
// from an earlier run are removed, so a glob sees only this run's shards.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_TEXTTOSHARDS_H
#define GPTC_RUNTIME_DATA_TEXTTOSHARDS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gptc {
namespace data {

struct MakeShardsOptions {
  /// Fraction of documents for validation, in (0, 0.5].
  double valFraction = 0.05;
  /// Tokens per shard, in [1, 2^31 - 1].
  uint64_t shardTokens = 100000000;
  /// File name prefix: PREFIX_train_000001.bin.
  std::string prefix = "tiny";
  /// One document per input file instead of one per paragraph block.
  bool docPerFile = false;
  /// Tokenise with this BPE vocabulary (documents separated by its
  /// <|endoftext|>) instead of bytes and BOS 256.
  const class BpeTokenizer *bpe = nullptr;
  /// The inputs' contents when the caller read them already (one string
  /// per input): --train-bpe reads its inputs once, so a pipe works.
  const std::vector<std::string> *texts = nullptr;
  /// Called after each document with the input bytes read so far.
  std::function<void(uint64_t)> progress;
};

struct MakeShardsResult {
  uint64_t documents = 0, trainDocuments = 0, valDocuments = 0;
  /// Tokens written, BOS included.
  uint64_t tokens = 0, trainTokens = 0, valTokens = 0;
  /// Paths written: val shards first, then train shards.
  std::vector<std::string> files;
  /// Shards of an earlier run (listed in PREFIX.shards) that were removed.
  std::vector<std::string> removed;
};

/// Every k-th document goes to val: k = max(2, round(1 / valFraction)).
uint64_t valStride(double valFraction);

/// The shard name for split "train" or "val" and index `index`.
std::string shardFileName(const std::string &prefix, const std::string &split,
                          uint64_t index);

/// False with `error` when the shard at `shardPath` is in a directory whose
/// shard list says that a gptc data stopped while it swapped in new
/// shards (old and new mixed): training on them would be silent harm.
bool checkShardSetComplete(const std::string &shardPath, std::string &error);

/// False with `error` when `path` cannot be a text input: missing, a
/// directory, or a device (/dev/zero would be read until memory runs
/// out). A regular file or a pipe is one.
bool checkTextInput(const std::string &path, std::string &error);

/// The list of the shards gptc data wrote into a directory, beside them:
/// PREFIX.shards (one file name a line).
std::string shardListName(const std::string &prefix);

/// Reads `inputs` (text files, in order) and writes shards to `outDir`
/// (created if missing). Returns false and sets `error` (one line naming the
/// file and the problem). Shards of this prefix already in `outDir` must be
/// listed in its PREFIX.shards (else nothing is written); the new shards
/// are written to a staging directory and moved in when all are complete,
/// and the listed old shards they do not replace are removed. A run that
/// fails leaves the directory as it was.
bool makeShards(const std::vector<std::string> &inputs,
                const std::string &outDir, const MakeShardsOptions &options,
                MakeShardsResult &result, std::string &error);

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_TEXTTOSHARDS_H
