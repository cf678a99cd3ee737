//===- ShardFuzzer.cpp - libFuzzer target: the token shard reader ---------===//
//
// Writes the input to a file and reads it back with readShardHeader,
// readShard and Shard::open: each must accept a well-formed shard (and then
// agree on its tokens) or return one error line, never crash or read out of
// bounds.
//
//===----------------------------------------------------------------------===//

#include "runtime/data/Shard.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// A file of this process, rewritten for every input and removed at exit.
const std::string &scratchPath() {
  // Never destroyed: the exit handler still reads it.
  static const std::string *path = [] {
    const char *dir = std::getenv("TMPDIR");
    auto *p = new std::string(std::string(dir && *dir ? dir : "/tmp") +
                              "/gptc-shard-fuzz." + std::to_string(getpid()) +
                              ".bin");
    std::atexit([] { std::remove(scratchPath().c_str()); });
    return p;
  }();
  return *path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = scratchPath();
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    std::abort();
  if (size && std::fwrite(data, 1, size, f) != size)
    std::abort();
  std::fclose(f);

  std::string error;
  uint64_t n = 0;
  bool header = gptc::data::readShardHeader(path, n, error);
  std::vector<uint16_t> tokens;
  bool whole = gptc::data::readShard(path, tokens, error);
  gptc::data::Shard shard;
  bool mapped = shard.open(path, error);
  if (header != whole || whole != mapped)
    std::abort(); // the three readers disagree
  if (mapped) {
    if (tokens.size() != n || shard.size() != n)
      std::abort();
    for (size_t i = 0; i < n; ++i)
      if (shard[i] != tokens[i])
        std::abort();
  }
  return 0;
}
