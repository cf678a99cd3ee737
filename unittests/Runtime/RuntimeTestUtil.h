//===- RuntimeTestUtil.h - Helpers for the runtime tests --------*- C++ -*-===//
//
// A temporary directory per test, the manifest and spec of the fake step
// (FakeStep.h) and token shards a bigram model can learn.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
#define GPTC_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H

#include "FakeLayout.h"
#include "FakeStep.h"
#include "runtime/Files.h"
#include "runtime/data/Shard.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace gptc {
namespace runtime {
namespace testing {

/// A fresh temporary directory per test, removed afterwards.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "gptc-rt-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string path(const std::string &name) const {
    return (std::filesystem::path(dir) / name).string();
  }
  std::string dir;
};

inline void writeFile(const std::string &path, const std::string &text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

inline llvm::json::Object slot(const char *name, int64_t offset,
                               const char *dtype, std::vector<int64_t> shape) {
  llvm::json::Array s;
  for (int64_t d : shape)
    s.push_back(d);
  return llvm::json::Object{{"name", name},
                            {"offset", offset},
                            {"dtype", dtype},
                            {"shape", std::move(s)}};
}

/// The step_library entry of a bundle whose step.so is the fake module.
inline llvm::json::Object fakeStepLibrary() {
  static std::string sha;
  static int64_t bytes = 0;
  if (sha.empty()) {
    std::string error;
    if (!sha256File(GPTC_FAKE_STEP_SO, sha, bytes, error))
      ADD_FAILURE() << error;
  }
  return llvm::json::Object{
      {"file", "step.so"}, {"bytes", bytes}, {"sha256", sha}};
}

/// The manifest of the fake step (run defaults: 40 steps, seed 3, the
/// data/fake_{train,val}_*.bin shards, validation every 10 steps on 128
/// tokens).
inline llvm::json::Object fakeManifest() {
  llvm::json::Array slots{
      slot("tokens", FAKE_OFF_TOKENS, "i32", {FAKE_B, FAKE_T}),
      slot("targets", FAKE_OFF_TARGETS, "i32", {FAKE_B, FAKE_T}),
      slot("step", FAKE_OFF_STEP, "i64", {}),
      slot("loss", FAKE_OFF_LOSS, "f32", {}),
      slot("eval_loss", FAKE_OFF_EVAL_LOSS, "f32", {}),
      slot("lr_mult", FAKE_OFF_LR_MULT, "f32", {}),
      slot("param.w", FAKE_OFF_W, "f32", {FAKE_V, FAKE_V}),
      slot("grad.w", FAKE_OFF_GRAD_W, "f32", {FAKE_V, FAKE_V}),
      slot("total_steps", FAKE_OFF_TOTAL_STEPS, "i64", {}),
  };
  llvm::json::Array params{
      llvm::json::Object{{"name", "w"},
                         {"shape", llvm::json::Array{FAKE_V, FAKE_V}},
                         {"init", "normal"},
                         {"std", 0.1},
                         {"values", llvm::json::Array{}},
                         {"group", "all"},
                         {"optimizer", "adam"}}};
  return llvm::json::Object{
      {"format", "gptc-step/3"},
      {"compiler", "test"},
      {"spec_name", "fake"},
      {"target", "cpu"},
      {"dtype", "f32"},
      {"arena_bytes", FAKE_ARENA_BYTES},
      {"workspace",
       llvm::json::Object{{"offset", FAKE_ARENA_BYTES}, {"bytes", 0}}},
      {"layout_sha256", FAKE_LAYOUT_SHA256},
      {"step_library", fakeStepLibrary()},
      {"device_batch", FAKE_B},
      {"seq_len", FAKE_T},
      {"grad_accum", FAKE_ACCUM},
      {"ranks", 1},
      {"vocab_size", FAKE_V},
      {"padded_vocab", FAKE_V},
      {"bos_token", 0},
      {"run", llvm::json::Object{{"steps", FAKE_STEPS},
                                 {"seed", 3},
                                 {"train", "data/fake_train_*.bin"},
                                 {"val", "data/fake_val_*.bin"},
                                 {"val_every", 10},
                                 {"val_tokens", 128},
                                 {"timing_skip_steps", 2}}},
      {"slots", std::move(slots)},
      {"params", std::move(params)}};
}

inline std::string toJson(llvm::json::Object o) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o)));
  return os.str();
}

/// `n` tokens < FAKE_V where the next token is mostly (5 t + 3) mod V:
/// a bigram model can learn it. Deterministic.
inline std::vector<uint16_t> bigramTokens(size_t n, uint32_t seed) {
  std::vector<uint16_t> t(n);
  uint32_t x = seed * 2654435761u + 1;
  uint16_t cur = 0;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    cur = (x >> 24) < 32 ? uint16_t((x >> 16) % FAKE_V)
                         : uint16_t((5 * cur + 3) % FAKE_V);
    t[i] = cur;
  }
  return t;
}

inline void writeTokens(const std::string &path,
                        const std::vector<uint16_t> &tokens) {
  std::string error;
  ASSERT_TRUE(data::writeShard(path, tokens, error)) << error;
}

} // namespace testing
} // namespace runtime
} // namespace gptc

#endif // GPTC_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
