//===- SafeTensorsFuzzer.cpp - libFuzzer target: the safetensors reader ---===//
//
// Feeds arbitrary bytes to SafeTensorsFile::parse (a checkpoint's
// model.safetensors and optimizer.safetensors, --init's weights): it must
// accept them or return one error line, never crash or trip a sanitizer.
// Every tensor of an accepted file must lie inside the data region.
//
//===----------------------------------------------------------------------===//

#include "runtime/SafeTensors.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gptc::runtime::SafeTensorsFile file;
  std::string error;
  if (!file.parse(std::vector<uint8_t>(data, data + size), "fuzz.safetensors",
                  error))
    return 0;
  for (const auto &t : file.tensors())
    if (t.begin < 0 || t.bytes < 0 || size_t(t.begin + t.bytes) > size)
      std::abort();
  return 0;
}
