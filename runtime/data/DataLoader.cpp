//===- DataLoader.cpp - Distributed token loader --------------------------===//

#include "runtime/data/DataLoader.h"
#include "runtime/data/TextToShards.h"

#include <algorithm>

#include <cstring>

namespace gptc {
namespace data {

DataLoader::~DataLoader() { joinPrefetch(); }

bool DataLoader::init(const DataLoaderOptions &options, std::string &error) {
  joinPrefetch();
  shard.close();
  mapped = size_t(-1);
  paths.clear();
  sizes.clear();
  opts = options;
  const DataLoaderOptions &o = opts;
  if (o.batchSize < 1 || o.seqLen < 1 || o.worldSize < 1 || o.rank < 0 ||
      o.rank >= o.worldSize) {
    error = "data loader: bad shape B=" + std::to_string(o.batchSize) +
            " T=" + std::to_string(o.seqLen) +
            " rank=" + std::to_string(o.rank) +
            " world=" + std::to_string(o.worldSize);
    return false;
  }
  if (o.vocabSize < 1) {
    error = "data loader: bad vocab size " + std::to_string(o.vocabSize);
    return false;
  }
  if (!expandShardGlob(o.pattern, paths, error))
    return false;

  const uint64_t step = uint64_t(tokensPerStep());
  for (const std::string &path : paths) {
    uint64_t n = 0;
    if (!checkShardSetComplete(path, error) || !readShardHeader(path, n, error))
      return false;
    if (n < step + 1) {
      error = path + ": " + std::to_string(n) +
              " tokens, too few for one step of B*T*W + 1 = " +
              std::to_string(step + 1) + " tokens";
      return false;
    }
    sizes.push_back(n);
    // Every token id checked now, not when its batch comes up hours in.
    if (!checkTokenIds(path, n, uint64_t(o.vocabSize), error))
      return false;
  }

  if (isValidation()) {
    if (o.valTokens % int64_t(step) != 0) {
      error = "data loader: validation tokens " + std::to_string(o.valTokens) +
              " are not a multiple of B*T*W = " + std::to_string(step);
      return false;
    }
    // Steps available in one pass: floor((n - 1) / step) per shard.
    uint64_t available = 0;
    for (uint64_t n : sizes)
      available += (n - 1) / step;
    if (available < uint64_t(valSteps())) {
      error = o.pattern + ": the validation shards hold " +
              std::to_string(available) + " steps of " + std::to_string(step) +
              " tokens (" + std::to_string(totalTokens()) +
              " tokens), fewer than the " + std::to_string(valSteps()) +
              " needed for " + std::to_string(o.valTokens) +
              " validation tokens";
      return false;
    }
  }
  window.assign(size_t(batchTokens()) + 1, 0);
  ahead.assign(window.size(), 0);
  reset();
  return true;
}

bool DataLoader::checkTokenIds(const std::string &path, uint64_t numTokens,
                               uint64_t vocab, std::string &error) {
  Shard shard;
  if (!shard.open(path, error))
    return false;
  std::vector<uint16_t> chunk(size_t(1) << 20);
  for (uint64_t start = 0; start < numTokens; start += chunk.size()) {
    size_t count = size_t(std::min<uint64_t>(chunk.size(), numTokens - start));
    if (!shard.read(start, count, chunk.data(), error))
      return false;
    // A branch-free pass (vectorised) finds whether any id is out of range;
    // only then is the first one looked for.
    uint16_t largest = 0;
    for (size_t i = 0; i < count; ++i)
      largest = std::max(largest, chunk[i]);
    if (largest < vocab)
      continue;
    for (size_t i = 0; i < count; ++i)
      if (chunk[i] >= vocab) {
        uint64_t offset = start + i;
        error = path + ": token " + std::to_string(chunk[i]) +
                " at token offset " + std::to_string(offset) + " (byte " +
                std::to_string(kShardHeaderBytes + 2 * offset) +
                ") is >= the vocab size " + std::to_string(vocab);
        return false;
      }
  }
  return true;
}

int64_t DataLoader::valSteps() const {
  return isValidation() ? opts.valTokens / tokensPerStep() : 0;
}

uint64_t DataLoader::totalTokens() const {
  uint64_t total = 0;
  for (uint64_t n : sizes)
    total += n;
  return total;
}

void DataLoader::reset() {
  joinPrefetch();
  cursor = Cursor();
  returned = Cursor();
  stepsReturned = 0;
}

bool DataLoader::produce(std::vector<int32_t> &out, Cursor &at,
                         std::string &error) {
  if (mapped != cursor.shard) {
    mapped = size_t(-1);
    if (!shard.open(paths[cursor.shard], error))
      return false;
    if (shard.size() != sizes[cursor.shard]) {
      error = shard.path() + ": changed since the loader started (" +
              std::to_string(shard.size()) + " tokens, was " +
              std::to_string(sizes[cursor.shard]) + ")";
      shard.close();
      return false;
    }
    mapped = cursor.shard;
  }
  const uint64_t bt = uint64_t(batchTokens());
  const uint64_t start = cursor.pos + uint64_t(opts.rank) * bt;
  // Read, not taken from the mapping: a shard that shrank under the run
  // is an error, not SIGBUS.
  staged.resize(size_t(bt) + 1);
  if (!shard.read(start, staged.size(), staged.data(), error))
    return false;
  const uint64_t vocab = uint64_t(opts.vocabSize);
  for (uint64_t i = 0; i <= bt; ++i) {
    uint16_t t = staged[i];
    if (t >= vocab) {
      uint64_t offset = start + i;
      error = shard.path() + ": token " + std::to_string(t) +
              " at token offset " + std::to_string(offset) + " (byte " +
              std::to_string(kShardHeaderBytes + 2 * offset) +
              ") is >= the vocab size " + std::to_string(vocab);
      return false;
    }
    out[i] = int32_t(t);
  }
  at = cursor;
  advance(cursor);
  return true;
}

void DataLoader::advance(Cursor &c) const {
  // Move on when the rest is too short for the next step.
  const uint64_t step = uint64_t(tokensPerStep());
  c.pos += step;
  if (c.pos + step + 1 > sizes[c.shard]) {
    c.pos = 0;
    if (++c.shard == paths.size()) {
      c.shard = 0;
      ++c.epoch;
    }
  }
}

DataLoader::Position DataLoader::nextPosition() const {
  if (stepsReturned == 0)
    return cursor;
  Cursor c = returned;
  advance(c);
  return c;
}

bool DataLoader::seek(const Position &at, std::string &error) {
  const uint64_t step = uint64_t(tokensPerStep());
  if (at.shard >= paths.size() || at.pos % step != 0 ||
      at.pos + step + 1 > sizes[at.shard]) {
    error = opts.pattern + ": no batch starts at token " +
            std::to_string(at.pos) + " of shard " + std::to_string(at.shard) +
            " (" + std::to_string(paths.size()) + " shards)";
    return false;
  }
  joinPrefetch();
  cursor = at;
  returned = Cursor();
  stepsReturned = 0;
  return true;
}

void DataLoader::startPrefetch() {
  pending = true;
  worker =
      std::thread([this] { aheadOk = produce(ahead, aheadAt, aheadError); });
}

void DataLoader::joinPrefetch() {
  if (pending) {
    worker.join();
    pending = false;
  }
}

bool DataLoader::next(int32_t *inputs, int32_t *targets, std::string &error) {
  if (paths.empty()) {
    error = "data loader: next() before a successful init()";
    return false;
  }
  if (isValidation() && stepsReturned >= valSteps()) {
    error = opts.pattern + ": the " + std::to_string(valSteps()) +
            " validation steps are done; reset() to read them again";
    return false;
  }
  const std::vector<int32_t> *src = &window;
  Cursor at;
  if (opts.prefetch) {
    if (!pending)
      startPrefetch();
    joinPrefetch();
    if (!aheadOk) {
      error = aheadError;
      return false;
    }
    std::swap(ahead, window); // `ahead` is free for the worker again
    at = aheadAt;
  } else if (!produce(window, at, error)) {
    return false;
  }
  const size_t bt = size_t(batchTokens());
  std::memcpy(inputs, src->data(), bt * sizeof(int32_t));
  std::memcpy(targets, src->data() + 1, bt * sizeof(int32_t));
  returned = at;
  ++stepsReturned;
  if (opts.prefetch && (!isValidation() || stepsReturned < valSteps()))
    startPrefetch();
  return true;
}

} // namespace data
} // namespace gptc
