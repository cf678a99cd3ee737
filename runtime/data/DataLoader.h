//===- DataLoader.h - Distributed token loader ------------------*- C++ -*-===//
//
// The distributed data loader of llm.c / modded-nanogpt. With shards from a
// glob (sorted), batch B, sequence T, rank r of W ranks, each step reads the
// window
//
//     tokens[pos + r*B*T : pos + r*B*T + B*T + 1]
//
// of the current shard: inputs are its first B*T tokens, targets its last B*T
// (both int32, row-major [B][T]). Then pos += B*T*W, and when the rest of the
// shard is too short for the next step (pos + B*T*W + 1 > n) the loader moves
// to the next shard at pos 0. The decision does not depend on the rank, so
// ranks 0..W-1 together read exactly what one rank with batch W*B reads.
//
// Training mode wraps from the last shard to the first, counting epochs.
// Validation mode (valTokens > 0) reads the first valTokens tokens of its
// shards in valTokens / (B*T*W) steps, the same way, then stops until
// reset(): every validation pass sees the same batches.
//
// Token ids >= vocabSize are an error naming the shard and offset, found
// when the loader starts (every shard is read through once). With
// `prefetch` the next batch is read on a std::thread while the caller works;
// the batches are the same either way.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_DATALOADER_H
#define GPTC_RUNTIME_DATA_DATALOADER_H

#include "runtime/data/Shard.h"

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace gptc {
namespace data {

struct DataLoaderOptions {
  /// Glob of the shard files, e.g. "data/tiny_train_*.bin".
  std::string pattern;
  int64_t batchSize = 0; // B
  int64_t seqLen = 0;    // T
  int rank = 0;
  int worldSize = 1;
  /// Token ids must be < vocabSize.
  int64_t vocabSize = 0;
  /// > 0: validation mode over the first valTokens tokens, a multiple of
  /// B*T*W (e.g. 10,485,760).
  int64_t valTokens = 0;
  /// Read the next batch on a background thread.
  bool prefetch = false;
};

class DataLoader {
public:
  DataLoader() = default;
  ~DataLoader();
  DataLoader(const DataLoader &) = delete;
  DataLoader &operator=(const DataLoader &) = delete;

  /// Expands the glob and checks every shard's header and size, that each
  /// holds at least one step (B*T*W + 1 tokens) and, in validation mode,
  /// that the shards hold valTokens. Returns false and sets `error`.
  bool init(const DataLoaderOptions &options, std::string &error);

  /// Fills `inputs` and `targets`, B*T int32 each. Returns false and sets
  /// `error` on a bad token or an unreadable shard, and in validation mode
  /// once valSteps() batches have been read.
  bool next(int32_t *inputs, int32_t *targets, std::string &error);
  bool next(std::vector<int32_t> &inputs, std::vector<int32_t> &targets,
            std::string &error) {
    inputs.resize(size_t(batchTokens()));
    targets.resize(size_t(batchTokens()));
    return next(inputs.data(), targets.data(), error);
  }

  /// Back to the first batch (pos 0 of the first shard, epoch 0).
  void reset();

  bool isValidation() const { return opts.valTokens > 0; }
  /// B*T: the tokens of one rank's inputs.
  int64_t batchTokens() const { return opts.batchSize * opts.seqLen; }
  /// B*T*W: the tokens all ranks consume per step.
  int64_t tokensPerStep() const { return batchTokens() * opts.worldSize; }
  /// Validation mode: the number of steps of one pass.
  int64_t valSteps() const;
  /// Batches returned since init() or reset().
  int64_t steps() const { return stepsReturned; }

  // Where the batch last returned came from (all 0 before the first one).
  /// Completed passes over all shards (training mode).
  uint64_t epoch() const { return returned.epoch; }
  size_t shardIndex() const { return returned.shard; }
  /// The step's base position in its shard (rank 0's window start).
  uint64_t position() const { return returned.pos; }

  /// A place in the stream of training batches.
  struct Position {
    size_t shard = 0; ///< index into files()
    uint64_t pos = 0; ///< the step's base position in that shard
    uint64_t epoch = 0;
  };
  /// Where the batch after the last one returned starts (the first batch
  /// before any): what a checkpoint records to continue the stream.
  Position nextPosition() const;
  /// Continues from `at` (a nextPosition() of a loader over the same
  /// shards, B, T and ranks): the next batch is read there. False with
  /// `error` when `at` is not a batch start of these shards.
  bool seek(const Position &at, std::string &error);

  const std::vector<std::string> &files() const { return paths; }
  const std::vector<uint64_t> &shardSizes() const { return sizes; }
  uint64_t totalTokens() const;

private:
  using Cursor = Position;
  /// Reads the shard `path` of `numTokens` tokens through and checks that
  /// every id is < `vocab` (init's check, before any batch).
  static bool checkTokenIds(const std::string &path, uint64_t numTokens,
                            uint64_t vocab, std::string &error);
  /// Moves `c` to the next step's window.
  void advance(Cursor &c) const;

  /// Reads the window at `cursor` into `window` (B*T + 1 tokens), sets `at`
  /// to where it came from and advances the cursor.
  bool produce(std::vector<int32_t> &window, Cursor &at, std::string &error);
  void startPrefetch();
  void joinPrefetch();

  DataLoaderOptions opts;
  std::vector<std::string> paths;
  std::vector<uint64_t> sizes;
  Shard shard; // the mapped shard, paths[mapped]
  size_t mapped = size_t(-1);
  Cursor cursor;   // the next batch to read
  Cursor returned; // the batch last returned
  int64_t stepsReturned = 0;
  std::vector<int32_t> window;  // B*T + 1
  std::vector<uint16_t> staged; // the shard's bytes of a window

  // Prefetch: the worker fills `ahead` from `cursor`.
  std::thread worker;
  bool pending = false;
  std::vector<int32_t> ahead;
  Cursor aheadAt;
  bool aheadOk = false;
  std::string aheadError;
};

} // namespace data
} // namespace gptc

#endif // GPTC_RUNTIME_DATA_DATALOADER_H
