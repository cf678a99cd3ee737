//===- DocumentSeparator.cpp - Shards whose documents the spec can find ---===//

#include "runtime/DocumentSeparator.h"

#include "runtime/TokenizerRecord.h"
#include "runtime/Trainer.h"
#include "runtime/data/BpeTokenizer.h"
#include "runtime/data/Shard.h"
#include "runtime/data/Tokenizer.h"

#include <algorithm>
#include <vector>

namespace gptc {
namespace runtime {

namespace {

/// The first tokens of a shard that the check counts in.
constexpr size_t kSampleTokens = 1u << 20;
/// Fewer tokens than this may hold no document start at all: no verdict.
constexpr size_t kLeastSample = 1u << 16;

std::string fileName(const std::string &path) {
  return path.substr(path.find_last_of('/') + 1);
}

} // namespace

int64_t recordedSeparator(const std::string &shardPath, std::string &what) {
  TokenizerRecord record = tokenizerRecordOfShard(shardPath);
  switch (record.kind) {
  case TokenizerRecord::Kind::bytes:
    what = "BOS of the byte tokenizer";
    return data::ByteTokenizer::kBOS;
  case TokenizerRecord::Kind::bpe: {
    data::BpeTokenizer bpe;
    std::string ignored;
    if (!bpe.load(record.file, ignored))
      return -1;
    what = "<|endoftext|> of the BPE vocabulary " + record.file;
    return bpe.endOfText();
  }
  default:
    return -1;
  }
}

bool checkDocumentSeparator(const std::string &firstShard, int64_t bosToken,
                            std::string &error) {
  data::Shard shard;
  if (!shard.open(firstShard, error))
    return false;
  std::vector<uint16_t> sample(std::min(shard.size(), kSampleTokens));
  if (!shard.read(0, sample.size(), sample.data(), error))
    return false;
  auto count = [&](int64_t id) {
    return uint64_t(std::count(sample.begin(), sample.end(), uint16_t(id)));
  };
  const std::string in = " in the first " +
                         withThousands(int64_t(sample.size())) + " tokens of " +
                         fileName(firstShard);
  std::string what;
  int64_t recorded = recordedSeparator(firstShard, what);
  if (recorded >= 0 && recorded != bosToken) {
    error = tokenizerRecordPathOfShard(firstShard) +
            ": the shards' documents start with id " +
            std::to_string(recorded) + " (" + what +
            "), but model.attention.bos_token is " + std::to_string(bosToken) +
            " (" + withThousands(int64_t(count(bosToken))) + " times" + in +
            ", against " + withThousands(int64_t(count(recorded))) + " of id " +
            std::to_string(recorded) +
            "): the document mask would cut documents at every " +
            std::to_string(bosToken) +
            "; compile with --set model.attention.bos_token=" +
            std::to_string(recorded);
    return false;
  }
  if (recorded < 0 && sample.size() >= kLeastSample && count(bosToken) == 0) {
    error = firstShard + ": model.attention.bos_token " +
            std::to_string(bosToken) + " never occurs" + in +
            ": the document mask would find no document; compile with " +
            "--set model.attention.bos_token=ID, the id that starts each " +
            "document (<|endoftext|>, 50256 for GPT-2's shards)";
    return false;
  }
  return true;
}

} // namespace runtime
} // namespace gptc
