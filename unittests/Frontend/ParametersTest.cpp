//===- ParametersTest.cpp - Parameter list, groups, layouts, windows ------===//

#include "SpecTestUtil.h"

#include "frontend/Parameters.h"

#include <cmath>

using namespace gptc;
using namespace gptc::test;

namespace {

ModelSpec parsed(const std::vector<std::string> &overrides) {
  ParseResult r = parseBase(overrides);
  EXPECT_TRUE(r.ok) << r.error.str();
  return r.spec;
}

std::vector<std::string> names(const std::vector<ParameterInfo> &params) {
  std::vector<std::string> out;
  for (const ParameterInfo &p : params)
    out.push_back(p.name);
  return out;
}

const ParameterInfo &find(const std::vector<ParameterInfo> &params,
                          const std::string &name) {
  for (const ParameterInfo &p : params)
    if (p.name == name)
      return p;
  ADD_FAILURE() << "no parameter " << name;
  static ParameterInfo none;
  return none;
}

using Shape = std::vector<int64_t>;

TEST(Parameters, NamesShapesAndOrderOfASmallModel) {
  ModelSpec spec = parsed({"model.n_layer=2", "model.vocab_pad_multiple=8"});
  std::vector<ParameterInfo> params = enumerateParameters(spec);
  EXPECT_EQ(names(params),
            (std::vector<std::string>{"wte", "blocks.0.attn.qkv",
                                      "blocks.0.attn.proj", "blocks.0.mlp.fc",
                                      "blocks.0.mlp.proj", "blocks.1.attn.qkv",
                                      "blocks.1.attn.proj", "blocks.1.mlp.fc",
                                      "blocks.1.mlp.proj", "lm_head"}));
  EXPECT_EQ(find(params, "wte").shape, (Shape{264, 64}));
  EXPECT_EQ(find(params, "blocks.1.attn.qkv").shape, (Shape{192, 64}));
  EXPECT_EQ(find(params, "blocks.1.attn.proj").shape, (Shape{64, 64}));
  EXPECT_EQ(find(params, "blocks.1.mlp.fc").shape, (Shape{256, 64}));
  EXPECT_EQ(find(params, "blocks.1.mlp.proj").shape, (Shape{64, 256}));
  EXPECT_EQ(find(params, "lm_head").shape, (Shape{264, 64}));
  for (const ParameterInfo &p : params) {
    EXPECT_EQ(p.init, InitRule::Normal) << p.name;
    EXPECT_DOUBLE_EQ(p.initValue, 0.02) << p.name;
  }

  SpecError error;
  ASSERT_TRUE(assignGroups(spec, params, error)) << error.str();
  EXPECT_EQ(find(params, "wte").group, 1);
  EXPECT_EQ(find(params, "blocks.1.mlp.fc").group, 0);
  EXPECT_EQ(find(params, "lm_head").group, 1);
  EXPECT_EQ(assignGroups(spec, params), "");
}

TEST(Parameters, EveryFeatureAndItsInit) {
  ModelSpec spec =
      parsed({"model.n_layer=2", "model.attention.qkv=separate",
              "model.shortcut_x0=true", "model.unet_skips=true",
              "model.value_embeddings=mirrored", "model.lm_head_zero_init=true",
              "model.out_proj_zero_init=true", "model.init_std=0.5",
              "optimizer.groups.hidden.params=[\"blocks.*.attn.q\", "
              "\"blocks.*.attn.k\", \"blocks.*.attn.v\", "
              "\"blocks.*.attn.proj\", \"blocks.*.mlp.*\"]"});
  std::vector<ParameterInfo> params = enumerateParameters(spec);
  EXPECT_EQ(names(params),
            (std::vector<std::string>{"wte",
                                      "value_embeds.0",
                                      "blocks.0.attn.q",
                                      "blocks.0.attn.k",
                                      "blocks.0.attn.v",
                                      "blocks.0.attn.proj",
                                      "blocks.0.mlp.fc",
                                      "blocks.0.mlp.proj",
                                      "blocks.0.lambdas",
                                      "blocks.0.attn.value_lambdas",
                                      "blocks.1.attn.q",
                                      "blocks.1.attn.k",
                                      "blocks.1.attn.v",
                                      "blocks.1.attn.proj",
                                      "blocks.1.mlp.fc",
                                      "blocks.1.mlp.proj",
                                      "blocks.1.lambdas",
                                      "blocks.1.attn.value_lambdas",
                                      "skip_weights",
                                      "lm_head"}));
  EXPECT_EQ(find(params, "blocks.0.attn.q").shape, (Shape{64, 64}));
  EXPECT_EQ(find(params, "value_embeds.0").shape, (Shape{257, 64}));
  EXPECT_EQ(find(params, "skip_weights").shape, (Shape{1}));
  EXPECT_EQ(find(params, "skip_weights").init, InitRule::Ones);
  EXPECT_EQ(find(params, "lm_head").init, InitRule::Zero);
  EXPECT_EQ(find(params, "blocks.1.attn.proj").init, InitRule::Zero);
  EXPECT_EQ(find(params, "blocks.1.mlp.proj").init, InitRule::Zero);
  EXPECT_EQ(find(params, "blocks.1.mlp.fc").init, InitRule::Normal);
  EXPECT_DOUBLE_EQ(find(params, "blocks.1.mlp.fc").initValue, 0.5);
  const ParameterInfo &lambdas = find(params, "blocks.1.lambdas");
  EXPECT_EQ(lambdas.init, InitRule::Values);
  EXPECT_EQ(lambdas.initValues, (std::vector<double>{1.0, 0.0}));
  const ParameterInfo &mix = find(params, "blocks.0.attn.value_lambdas");
  EXPECT_EQ(mix.shape, (Shape{2}));
  EXPECT_EQ(mix.initValues, (std::vector<double>{0.5, 0.5}));

  SpecError error;
  ASSERT_TRUE(assignGroups(spec, params, error)) << error.str();
  EXPECT_EQ(find(params, "blocks.1.attn.v").group, 0);
  EXPECT_EQ(find(params, "blocks.1.lambdas").group, 1);
  EXPECT_EQ(find(params, "value_embeds.0").group, 1);
}

TEST(Parameters, TiedModelHasNoHead) {
  ModelSpec spec = parsed({"model.tied_embedding=true"});
  std::vector<std::string> all = names(enumerateParameters(spec));
  EXPECT_EQ(std::count(all.begin(), all.end(), "lm_head"), 0);
  EXPECT_EQ(all.front(), "wte");
}

TEST(Parameters, GlobMatch) {
  EXPECT_TRUE(globMatch("wte", "wte"));
  EXPECT_FALSE(globMatch("wte", "wte2"));
  EXPECT_FALSE(globMatch("wte", "wt"));
  EXPECT_TRUE(globMatch("*", "blocks.3.mlp.fc"));
  EXPECT_TRUE(globMatch("blocks.*.mlp.*", "blocks.11.mlp.proj"));
  EXPECT_TRUE(globMatch("blocks.*", "blocks.1.attn.value_lambdas"));
  EXPECT_FALSE(globMatch("blocks.*.lambdas", "blocks.1.attn.value_lambdas"));
  EXPECT_TRUE(globMatch("blocks.*.attn.q", "blocks.0.attn.q"));
  EXPECT_FALSE(globMatch("blocks.*.attn.q", "blocks.0.attn.qkv"));
  EXPECT_TRUE(globMatch("*.proj", "blocks.0.attn.proj"));
  EXPECT_TRUE(globMatch("b*s.*.a*n.*", "blocks.0.attn.qkv"));
  EXPECT_TRUE(globMatch("**", ""));
  EXPECT_FALSE(globMatch("value_embeds.*", "value_embeds"));
}

TEST(Parameters, ValueEmbeddingLayouts) {
  ModelShape m;
  m.nLayer = 12;
  m.valueEmbeddings = ValueEmbeddings::None;
  EXPECT_EQ(valueEmbeddingTables(m), 0);
  EXPECT_EQ(valueEmbeddingLayout(m), std::vector<int>(12, -1));

  // R15: encoder layer i uses ve[i], decoder layer i uses ve[5 - i].
  m.valueEmbeddings = ValueEmbeddings::Mirrored;
  EXPECT_EQ(valueEmbeddingTables(m), 6);
  EXPECT_EQ(valueEmbeddingLayout(m),
            (std::vector<int>{0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0}));
  m.nLayer = 4;
  EXPECT_EQ(valueEmbeddingTables(m), 2);
  EXPECT_EQ(valueEmbeddingLayout(m), (std::vector<int>{0, 1, 1, 0}));

  // R17+: [ve0, ve1, ve2, none x (n - 6), ve0, ve1, ve2].
  m.valueEmbeddings = ValueEmbeddings::Ends;
  m.nLayer = 12;
  EXPECT_EQ(valueEmbeddingTables(m), 3);
  EXPECT_EQ(valueEmbeddingLayout(m),
            (std::vector<int>{0, 1, 2, -1, -1, -1, -1, -1, -1, 0, 1, 2}));
  m.nLayer = 8;
  EXPECT_EQ(valueEmbeddingLayout(m),
            (std::vector<int>{0, 1, 2, -1, -1, 0, 1, 2}));
  m.nLayer = 6;
  EXPECT_EQ(valueEmbeddingLayout(m), (std::vector<int>{0, 1, 2, 0, 1, 2}));
  // Invalid for a spec (the validator demands 6), but no crash.
  m.nLayer = 2;
  EXPECT_EQ(valueEmbeddingLayout(m).size(), 2u);
}

/// A spec whose only purpose is its window settings.
ModelSpec windowSpec(WindowUnit unit, int64_t start, int64_t end,
                     int64_t granularity, Rounding rounding, int64_t steps) {
  ModelSpec spec;
  spec.training.steps = steps;
  spec.training.seqLen = 65536;
  AttentionSpec &a = spec.model.attention;
  a.windowUnit = unit;
  a.windowStart = start;
  a.windowEnd = end;
  a.windowGranularity = granularity;
  a.windowRounding = rounding;
  return spec;
}

/// R13 (and R15): `64 * ((step / N * (1792 - 64) + 64) // 64)` tokens, as
/// Python evaluates it in doubles.
TEST(Parameters, WindowScheduleR13) {
  for (int64_t n : {1480, 1390, 3200, 200, 7}) {
    ModelSpec spec =
        windowSpec(WindowUnit::Tokens, 64, 1792, 64, Rounding::Floor, n);
    for (int64_t step = 0; step <= n; ++step) {
      double python =
          64 *
          std::floor((static_cast<double>(step) / n * (1792 - 64) + 64) / 64);
      ASSERT_EQ(windowTokens(spec, step, 0), static_cast<int64_t>(python))
          << "N " << n << " step " << step;
    }
    EXPECT_EQ(windowTokens(spec, 0, 0), 64);
    EXPECT_EQ(windowTokens(spec, n, 0), 1792);
  }
}

/// R19-R21: `next_multiple_of_n(1728 * step / N, n=128)`, which is at least
/// 128; short layers take `// 2` of the blocks, at least one block.
TEST(Parameters, WindowScheduleR19WithShortLayers) {
  for (int64_t n : {1770, 1393, 200, 3}) {
    ModelSpec spec =
        windowSpec(WindowUnit::Blocks, 0, 1728, 128, Rounding::Ceil, n);
    spec.model.attention.layerWindows = {LayerWindow::Long, LayerWindow::Short};
    for (int64_t step = 0; step <= n; ++step) {
      double v = 1728.0 * step / n;
      int64_t python = 128;
      while (python < v)
        python += 128;
      ASSERT_EQ(windowTokens(spec, step, 0), python)
          << "N " << n << " step " << step;
      int64_t shortBlocks = std::max<int64_t>(python / 128 / 2, 1);
      ASSERT_EQ(windowTokens(spec, step, 1), shortBlocks * 128)
          << "N " << n << " step " << step;
    }
    EXPECT_EQ(windowTokens(spec, n, 0), 1792);
    EXPECT_EQ(windowTokens(spec, n, 1), 896);
  }
}

/// R16: `int(((1 - f) * 64 + f * 1792 + 64) // 128)` blocks is start 128,
/// end 1856, granularity 128, floor.
TEST(Parameters, WindowScheduleR16Blocks) {
  const int64_t n = 1480;
  ModelSpec spec =
      windowSpec(WindowUnit::Blocks, 128, 1856, 128, Rounding::Floor, n);
  for (int64_t step = 0; step <= n; ++step) {
    double f = static_cast<double>(step) / n;
    int64_t blocks =
        static_cast<int64_t>(std::floor(((1 - f) * 64 + f * 1792 + 64) / 128));
    ASSERT_EQ(windowTokens(spec, step, 0), 128 * blocks) << step;
  }
}

TEST(Parameters, WindowEdgeCases) {
  ModelSpec spec = windowSpec(WindowUnit::None, 0, 0, 1, Rounding::Floor, 10);
  EXPECT_EQ(windowTokens(spec, 3, 0), 65536); // no window: the sequence
  spec = windowSpec(WindowUnit::Tokens, 1024, 1024, 1, Rounding::Floor, 10);
  EXPECT_EQ(windowTokens(spec, 0, 0), 1024); // constant (R12)
  EXPECT_EQ(windowTokens(spec, 10, 5), 1024);
  spec = windowSpec(WindowUnit::Tokens, 0, 0, 64, Rounding::Floor, 10);
  EXPECT_EQ(windowTokens(spec, 5, 0), 64); // at least one granule
  // A shrinking window and steps outside [0, N] are clamped, not UB.
  spec = windowSpec(WindowUnit::Tokens, 512, 128, 128, Rounding::Floor, 4);
  EXPECT_EQ(windowTokens(spec, 0, 0), 512);
  EXPECT_EQ(windowTokens(spec, 4, 0), 128);
  EXPECT_EQ(windowTokens(spec, 99, 0), 128);
  EXPECT_EQ(windowTokens(spec, -5, 0), 512);
}

TEST(Parameters, TinyR21WindowsFromTheSpecFile) {
  ModelSpec spec;
  SpecError error;
  ASSERT_TRUE(
      parseSpecFile(GPTC_SOURCE_DIR "/models/tiny-r21.yaml", {}, spec, error))
      << error.str();
  EXPECT_EQ(windowTokens(spec, 0, 0), 128);
  EXPECT_EQ(windowTokens(spec, 200, 0), 384);
  EXPECT_EQ(windowTokens(spec, 200, 1), 128); // short: 3 blocks // 2
  EXPECT_EQ(valueEmbeddingLayout(spec.model),
            (std::vector<int>{0, 1, 2, -1, -1, 0, 1, 2}));
}

} // namespace
