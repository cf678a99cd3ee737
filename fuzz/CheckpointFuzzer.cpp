//===- CheckpointFuzzer.cpp - libFuzzer target: checkpoint.json -----------===//
//
// Feeds arbitrary bytes to parseCheckpointJson (what --resume and gptc
// sample read first) against a manifest whose layout hash the seeds
// carry, so that inputs reach the field checks: it must accept the text
// or return one error line, never crash or trip a sanitizer.
//
//===----------------------------------------------------------------------===//

#include "runtime/Checkpoint.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const gptc::runtime::Manifest manifest = [] {
    gptc::runtime::Manifest m;
    m.specName = "fuzz";
    m.layoutSha256 = "0123456789abcdef";
    return m;
  }();
  gptc::runtime::CheckpointState state;
  std::string modelSha, optimizerSha, error;
  gptc::runtime::parseCheckpointJson(
      std::string(reinterpret_cast<const char *>(data), size),
      "checkpoint.json", manifest, state, modelSha, optimizerSha, error);
  return 0;
}
