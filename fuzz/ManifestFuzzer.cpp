//===- ManifestFuzzer.cpp - libFuzzer target: the manifest reader ---------===//
//
// Feeds arbitrary bytes to parseManifest (manifest.json of a bundle): it
// must accept the text or return one error line, never crash or trip a
// sanitizer. An accepted manifest's slots must lie inside the arena.
//
//===----------------------------------------------------------------------===//

#include "runtime/Manifest.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  gptc::runtime::Manifest m;
  std::string error;
  if (!gptc::runtime::parseManifest(text, "manifest.json", m, error))
    return 0;
  for (const gptc::runtime::Slot &s : m.slots)
    if (s.offset < 0 || s.offset + s.numBytes() > m.arenaBytes)
      std::abort();
  return 0;
}
