//===- SpecFuzzer.cpp - libFuzzer target: spec parser and checks ----------===//
//
// Feeds arbitrary bytes to parseSpecString as a spec in the source tree's
// test/Frontend/errors/ (so the seeds' `extends: ../../../models/...`
// resolve), with the `--set` overrides of the input's leading `#set K=V`
// lines. The parser must return true or one SpecError, never crash, hang,
// leak or trip a sanitizer.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecParser.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::vector<std::string> overrides;
  size_t pos = 0;
  while (text.compare(pos, 5, "#set ") == 0 && overrides.size() < 4) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    overrides.push_back(text.substr(pos + 5, end - pos - 5));
    pos = end == text.size() ? end : end + 1;
  }
  gptc::ModelSpec spec;
  gptc::SpecError error;
  if (!gptc::parseSpecString(text,
                             GPTC_SOURCE_DIR "/test/Frontend/errors/fuzz.yaml",
                             overrides, spec, error))
    (void)error.str();
  return 0;
}
