//===- SpecTestUtil.h - Helpers for the frontend unit tests -----*- C++ -*-===//
//
// A small valid spec with known line numbers, a one-call parser, and a
// scratch directory for `extends` tests.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_UNITTESTS_FRONTEND_SPECTESTUTIL_H
#define GPTC_UNITTESTS_FRONTEND_SPECTESTUTIL_H

#include "frontend/SpecParser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace gptc::test {

/// A valid spec; the comments give the line numbers the tests rely on.
inline const char *const kBaseSpec = R"(name: base
model:
  vocab_size: 257
  n_layer: 4
  d_model: 64
  n_head: 2
  head_dim: 32
  attention:
    qkv: fused
training:
  seq_len: 128
  device_batch: 4
  batch: 8
  steps: 100
optimizer:
  groups:
    hidden:
      kind: muon
      params: ["blocks.*.attn.qkv", "blocks.*.attn.proj", "blocks.*.mlp.*"]
      lr: 0.02
    rest:
      kind: adam
      params: [wte, lm_head, "blocks.*.lambdas", "blocks.*.attn.value_lambdas", skip_weights, "value_embeds.*"]
      lr: 0.001
)";
// Lines of kBaseSpec: 1 name, 2 model, 4 n_layer, 6 n_head, 8 attention,
// 10 training, 13 batch, 15 optimizer, 16 groups, 17 hidden, 18 its kind,
// 19 its params, 20 its lr, 21 rest, 22 its kind.
//
// The `rest` group lists optional parameters so that turning a feature on
// with --set leaves every parameter in a group; a group matching nothing is
// an error, so tests that need it remove the patterns it would not match.

struct ParseResult {
  bool ok = false;
  ModelSpec spec;
  SpecError error;
};

inline ParseResult parse(const std::string &text,
                         const std::vector<std::string> &overrides = {},
                         const std::string &fileName = "test.yaml") {
  ParseResult r;
  r.ok = parseSpecString(text, fileName, overrides, r.spec, r.error);
  return r;
}

inline ParseResult parseBase(const std::vector<std::string> &overrides) {
  return parse(kBaseSpec, overrides);
}

/// A fresh directory under the test temp dir, removed at destruction.
class ScratchDir {
public:
  explicit ScratchDir(const std::string &name) {
    path = std::filesystem::path(::testing::TempDir()) /
           ("gptc-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string &name, const std::string &text) const {
    std::filesystem::path file = path / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }
  std::string file(const std::string &name) const {
    return (path / name).string();
  }
  std::filesystem::path path;
};

} // namespace gptc::test

#endif // GPTC_UNITTESTS_FRONTEND_SPECTESTUTIL_H
