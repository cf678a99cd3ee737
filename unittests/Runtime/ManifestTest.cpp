//===- ManifestTest.cpp - manifest.json parsing and checks ----------------===//

#include "runtime/Manifest.h"

#include "RuntimeTestUtil.h"
#include "runtime/StepLayout.h"

#include <functional>

using namespace gptc::runtime;
using namespace gptc::runtime::testing;

namespace {

llvm::json::Object &slotAt(llvm::json::Object &m, size_t i) {
  return *(*m.getArray("slots"))[i].getAsObject();
}
llvm::json::Object &param0(llvm::json::Object &m) {
  return *(*m.getArray("params"))[0].getAsObject();
}

/// The error of parsing the fake manifest after `edit`.
std::string errorAfter(const std::function<void(llvm::json::Object &)> &edit) {
  llvm::json::Object m = fakeManifest();
  edit(m);
  Manifest out;
  std::string error;
  EXPECT_FALSE(
      parseManifest(toJson(std::move(m)), "b/manifest.json", out, error));
  return error;
}

TEST(Manifest, ParsesTheFakeManifest) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", m, error))
      << error;
  EXPECT_EQ(m.format, "gptc-step/3");
  EXPECT_EQ(m.arenaBytes, FAKE_ARENA_BYTES);
  EXPECT_EQ(m.deviceBatch, FAKE_B);
  EXPECT_EQ(m.seqLen, FAKE_T);
  EXPECT_EQ(m.gradAccum, FAKE_ACCUM);
  EXPECT_EQ(m.vocabSize, FAKE_V);
  EXPECT_EQ(m.workspaceOffset, FAKE_ARENA_BYTES);
  EXPECT_EQ(m.workspaceBytes, 0);
  EXPECT_EQ(m.layoutSha256, FAKE_LAYOUT_SHA256);
  EXPECT_EQ(m.stepLibrary.file, "step.so");
  EXPECT_EQ(m.stepLibrary.sha256.size(), 64u);
  EXPECT_EQ(m.run.steps, FAKE_STEPS);
  EXPECT_EQ(m.run.seed, 3);
  EXPECT_EQ(m.run.train, "data/fake_train_*.bin");
  EXPECT_EQ(m.run.valEvery, 10);
  EXPECT_EQ(m.run.valTokens, 128);
  EXPECT_EQ(m.run.timingSkipSteps, 2);
  // The descriptor the fake step library exports (FakeLayout.h) is the
  // manifest's layout, and its hash the one the manifest carries.
  EXPECT_EQ(m.layoutText(), FAKE_LAYOUT);
  EXPECT_EQ(gptc::layout::layoutHash(m.layoutText()), FAKE_LAYOUT_SHA256);
  ASSERT_EQ(m.slots.size(), 9u);
  const Slot *w = m.findSlot("param.w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->offset, FAKE_OFF_W);
  EXPECT_EQ(w->dtype, SlotType::F32);
  EXPECT_EQ(w->shape, (std::vector<int64_t>{FAKE_V, FAKE_V}));
  EXPECT_EQ(w->numBytes(), FAKE_V * FAKE_V * 4);
  EXPECT_EQ(m.findSlot("loss")->shape.size(), 0u);
  EXPECT_EQ(m.findSlot("nope"), nullptr);
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].init, ParamInit::Normal);
  EXPECT_EQ(m.params[0].stddev, 0.1);
  EXPECT_EQ(m.params[0].group, "all");
}

// renderManifest is what gptc compile writes: a manifest with every field
// the writer knows renders back to the same text, and what it renders
// parses to the same manifest.
TEST(Manifest, RendersWhatItParses) {
  llvm::json::Object full = fakeManifest();
  full["host_cpu"] = llvm::json::Object{
      {"name", "znver4"}, {"features", llvm::json::Array{"avx2", "fma"}}};
  full["divergence_factor"] = 4.5;
  full["document_mask"] = true;
  full["group_lrs"] =
      llvm::json::Array{llvm::json::Object{{"name", "all"}, {"lr", 0.5}}};
  param0(full)["init"] = "values";
  param0(full)["std"] = 0.0;
  llvm::json::Array values;
  for (int i = 0; i < FAKE_V * FAKE_V; ++i)
    values.push_back(0.25 * i);
  param0(full)["values"] = std::move(values);
  std::string text = toJson(std::move(full)) + "\n";
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, "m.json", m, error)) << error;
  EXPECT_EQ(renderManifest(m), text);
  Manifest again;
  ASSERT_TRUE(parseManifest(renderManifest(m), "again.json", again, error))
      << error;
  EXPECT_EQ(renderManifest(again), text);
  EXPECT_EQ(again.hostCpuFeatures, m.hostCpuFeatures);
  EXPECT_EQ(again.divergenceFactor, 4.5);
  EXPECT_TRUE(again.documentMask);
  ASSERT_EQ(again.groupRates.size(), 1u);
  EXPECT_EQ(again.groupRates[0].name, "all");
  EXPECT_EQ(again.groupRates[0].lr, 0.5);
  EXPECT_EQ(again.params[0].values, m.params[0].values);
  EXPECT_EQ(again.layoutText(), m.layoutText());
}

// A field the renderer forgets is a field the runtime loses: a manifest
// changed in one field renders differently.
TEST(Manifest, RenderingSeesEveryField) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", m, error))
      << error;
  std::string base = renderManifest(m);
  std::vector<std::function<void(Manifest &)>> edits = {
      [](Manifest &x) { x.run.timingSkipSteps += 1; },
      [](Manifest &x) { x.groupRates.push_back({"g", 0.1}); },
      [](Manifest &x) { x.run.val += "x"; },
      [](Manifest &x) { x.bosToken += 1; },
      [](Manifest &x) { x.workspaceBytes += 64; },
      [](Manifest &x) { x.stepLibrary.bytes += 1; },
      [](Manifest &x) { x.slots[0].offset += 64; },
      [](Manifest &x) { x.params[0].group = "other"; },
      [](Manifest &x) { x.params[0].stddev = 0.5; },
      [](Manifest &x) { x.divergenceFactor = 2; },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    Manifest edited = m;
    edits[i](edited);
    EXPECT_NE(renderManifest(edited), base) << "edit " << i;
  }
}

TEST(Manifest, TheBodyHashSeesEveryFieldButTheLibrary) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", m, error))
      << error;
  const std::string base = manifestBodySha256(m);
  EXPECT_EQ(base.size(), 64u);
  // What the library cannot know when the hash is embedded in it.
  Manifest relinked = m;
  relinked.stepLibrary.sha256 = std::string(64, 'f');
  relinked.stepLibrary.bytes += 1;
  EXPECT_EQ(manifestBodySha256(relinked), base);
  // Everything else.
  std::vector<std::function<void(Manifest &)>> edits = {
      [](Manifest &x) { x.target = "cuda"; },
      [](Manifest &x) { x.ranks = 2; },
      [](Manifest &x) { x.params[0].stddev = 0.5; },
      [](Manifest &x) { x.bosToken += 1; },
      [](Manifest &x) { x.run.steps += 1; },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    Manifest edited = m;
    edits[i](edited);
    EXPECT_NE(manifestBodySha256(edited), base) << "edit " << i;
  }
}

TEST(Manifest, ErrorsNameFileAndField) {
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m.erase("arena_bytes"); }),
            "b/manifest.json: arena_bytes: missing");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m["seq_len"] = "8"; }),
            "b/manifest.json: seq_len: expected an integer");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m["device_batch"] = 0; }),
            "b/manifest.json: device_batch: 0 is out of range [1, "
            "2147483648]");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m["format"] = "x/2"; }),
            "b/manifest.json: format: 'x/2' is not gptc-step/3 (recompile "
            "the bundle with this gptc)");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { slotAt(m, 6)["dtype"] = "f16"; }),
      "b/manifest.json: slots[6] (param.w).dtype: unknown dtype 'f16' "
      "(expected i32, i64, f32, f64 or bf16)");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { slotAt(m, 7)["offset"] = 2048; }),
      "b/manifest.json: slots[7] (grad.w): bytes [2048, 3072) exceed the "
      "slots' region [0, 2496)");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { slotAt(m, 7)["offset"] = 1344; }),
      "b/manifest.json: slots (grad.w): offset 1344 overlaps slot "
      "'param.w' at 384");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { slotAt(m, 3)["offset"] = 200; }),
      "b/manifest.json: slots[3] (loss).offset: 200 is not a multiple "
      "of 64");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { slotAt(m, 6)["bytes"] = 1000; }),
      "b/manifest.json: slots[6] (param.w).bytes: 1000 does not match "
      "shape [16, 16] of f32 (1024 bytes)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              slotAt(m, 0)["shape"] = llvm::json::Array{1, 8};
            }),
            "b/manifest.json: slots (tokens): is i32 [1, 8], expected i32 "
            "[2, 8]");
  EXPECT_EQ(errorAfter(
                [](llvm::json::Object &m) { slotAt(m, 3)["name"] = "losses"; }),
            "b/manifest.json: slots: no slot 'loss'");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              m["workspace"] =
                  llvm::json::Object{{"offset", 2048}, {"bytes", 1024}};
            }),
            "b/manifest.json: workspace: [2048, 3072) exceeds arena_bytes "
            "2496");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              m["workspace"] =
                  llvm::json::Object{{"offset", 1408}, {"bytes", 1024}};
            }),
            "b/manifest.json: slots[7] (grad.w): bytes [1408, 2432) exceed "
            "the slots' region [0, 1408)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m.erase("workspace"); }),
            "b/manifest.json: workspace: missing");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m.erase("run"); }),
            "b/manifest.json: run: missing");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              m["step_library"] = llvm::json::Object{
                  {"file", "../other.so"}, {"bytes", 1}, {"sha256", "x"}};
            }),
            "b/manifest.json: step_library.file: '../other.so' is not a file "
            "name in the bundle");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              param0(m)["shape"] = llvm::json::Array{16, 15};
            }),
            "b/manifest.json: params[0] (w).shape: [16, 15] but slot "
            "'param.w' is [16, 16]");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { param0(m)["init"] = "uniform"; }),
      "b/manifest.json: params[0] (w).init: unknown init 'uniform' "
      "(expected normal, zeros, ones or values)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { param0(m).erase("std"); }),
            "b/manifest.json: params[0] (w).std: missing");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              param0(m)["init"] = "values";
              param0(m)["values"] = llvm::json::Array{1.0, 0.0};
            }),
            "b/manifest.json: params[0] (w).values: 2 values for shape [16, "
            "16] (256 elements)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { param0(m)["name"] = "v"; }),
            "b/manifest.json: params[0] (v): no slot 'param.v'");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &m) { m.getArray("params")->clear(); }),
      "b/manifest.json: slots (param.w): no entry in params for this "
      "parameter slot");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m["slots"] = 3; }),
            "b/manifest.json: slots: expected an array");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) { m["host_cpu"] = "x"; }),
            "b/manifest.json: host_cpu: expected an object");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              m["host_cpu"] =
                  llvm::json::Object{{"features", llvm::json::Array{"avx2"}}};
            }),
            "b/manifest.json: host_cpu.name: missing");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              m["host_cpu"] = llvm::json::Object{{"name", "znver3"}};
            }),
            "b/manifest.json: host_cpu.features: missing");
  EXPECT_EQ(errorAfter([](llvm::json::Object &m) {
              m["host_cpu"] = llvm::json::Object{
                  {"name", "znver3"},
                  {"features", llvm::json::Array{"avx2", 3}}};
            }),
            "b/manifest.json: host_cpu.features: expected an array of "
            "non-empty strings");
}

TEST(Manifest, ReadsTheHostCpu) {
  llvm::json::Object o = fakeManifest();
  o["host_cpu"] = llvm::json::Object{
      {"name", "x86-64-v3"}, {"features", llvm::json::Array{"avx2", "fma"}}};
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(toJson(std::move(o)), "m.json", m, error)) << error;
  EXPECT_EQ(m.hostCpuName, "x86-64-v3");
  EXPECT_EQ(m.hostCpuFeatures, (std::vector<std::string>{"avx2", "fma"}));
  // Manifests without it (hand-written ones) are read; nothing is checked.
  ASSERT_TRUE(parseManifest(toJson(fakeManifest()), "m.json", m, error));
  EXPECT_TRUE(m.hostCpuName.empty() && m.hostCpuFeatures.empty());
}

TEST(Manifest, InvalidJsonAndMissingFile) {
  Manifest m;
  std::string error;
  EXPECT_FALSE(parseManifest("{\"format\": ", "x.json", m, error));
  EXPECT_EQ(error.rfind("x.json: invalid JSON: ", 0), 0u) << error;
  EXPECT_FALSE(parseManifest("[1]", "x.json", m, error));
  EXPECT_EQ(error, "x.json: expected a JSON object at the top level");
  EXPECT_FALSE(readManifest("/nonexistent/manifest.json", m, error));
  EXPECT_EQ(error, "/nonexistent/manifest.json: no such manifest");
  // Nested past any manifest's depth: refused before LLVM's recursive
  // parser sees it.
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_FALSE(parseManifest(deep, "x.json", m, error));
  EXPECT_EQ(error, "x.json: not a gptc manifest (larger than 64 MiB or "
                   "nested deeper than 64 levels)");
}

} // namespace
