//===- SpecChecksTest.cpp - Rules between keys, group assignment ----------===//
//
// One case per cross-field rule: the overrides that break it on top of
// kBaseSpec, the key the error must name and a piece of its message.
//
//===----------------------------------------------------------------------===//

#include "SpecTestUtil.h"

using namespace gptc;
using namespace gptc::test;

namespace {

struct RuleCase {
  const char *name;
  std::vector<std::string> overrides;
  const char *key;
  const char *message;
  /// The blamed key was written by an override (so the error points into
  /// the --set argument); false when it is a section of the spec file.
  bool blamesOverride = true;
};

/// How gtest (and ctest's test names) show a case: its name.
void PrintTo(const RuleCase &c, std::ostream *os) { *os << c.name; }

class CrossFieldRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(CrossFieldRule, IsEnforced) {
  const RuleCase &c = GetParam();
  ParseResult r = parseBase(c.overrides);
  ASSERT_FALSE(r.ok) << c.name;
  EXPECT_EQ(r.error.key, c.key) << r.error.str();
  EXPECT_NE(r.error.message.find(c.message), std::string::npos)
      << r.error.str();
  EXPECT_EQ(r.error.loc.file.rfind("--set ", 0) == 0, c.blamesOverride)
      << r.error.str();
}

const RuleCase kRules[] = {
    {"Heads",
     {"model.n_head=3"},
     "model.n_head",
     "n_head (3) * head_dim (32) = 96 must equal d_model (64)"},
    {"OddHeadDim",
     {"model.n_head=2", "model.head_dim=31", "model.d_model=62"},
     "model.head_dim",
     "head_dim (31) must be even"},
    {"HalfTruncatedHeadDim",
     {"model.head_dim=34", "model.d_model=68",
      "model.attention.rotary=half_truncated"},
     "model.attention.rotary",
     "multiple of 4"},
    {"TiedZeroHead",
     {"model.tied_embedding=true", "model.lm_head_zero_init=true"},
     "model.lm_head_zero_init",
     "needs an untied head"},
    {"ValueResidualAndEmbeddings",
     {"model.value_residual=true", "model.value_embeddings=mirrored"},
     "model.value_residual",
     "choose one"},
    {"UnetOddLayers",
     {"model.unet_skips=true", "model.n_layer=3"},
     "model.unet_skips",
     "unet_skips needs an even n_layer (got 3)"},
    {"MirroredOddLayers",
     {"model.value_embeddings=mirrored", "model.n_layer=5"},
     "model.value_embeddings",
     "need an even n_layer (got 5)"},
    {"EndsTooFewLayers",
     {"model.value_embeddings=ends"},
     "model.value_embeddings",
     "needs n_layer >= 6"},
    {"DocumentMaskWithoutCausal",
     {"model.attention.document_mask=true", "model.attention.causal=false"},
     "model.attention.document_mask",
     "document_mask needs causal: true"},
    {"BosOutsideVocab",
     {"model.attention.document_mask=true", "model.attention.bos_token=257"},
     "model.attention.bos_token",
     "bos_token (257) must be a token id below vocab_size (257)"},
    {"WindowWithoutCausal",
     {"model.attention.window_unit=tokens", "model.attention.causal=false"},
     "model.attention.window_unit",
     "a sliding window (window_unit: tokens) needs causal: true"},
    {"BlockWindowSeqLen",
     {"model.attention.window_unit=blocks", "training.seq_len=200",
      "model.attention.window_granularity=128"},
     "training.seq_len",
     "seq_len (200) must be a multiple of the 128-token attention block"},
    {"BlockWindowGranularity",
     {"model.attention.window_unit=blocks",
      "model.attention.window_granularity=64"},
     "model.attention.window_granularity",
     "window_granularity (64) must be a multiple of the 128-token"},
    {"PatternWithoutWindow",
     {"model.attention.window_pattern=[long, short, long, short]"},
     "model.attention.window_pattern",
     "window_unit is none"},
    {"PatternLength",
     {"model.attention.window_unit=tokens",
      "model.attention.window_pattern=[long, short]"},
     "model.attention.window_pattern",
     "window_pattern has 2 entries; it needs one per layer (n_layer = 4)"},
    {"WindowStartAfterEnd",
     {"model.attention.window_unit=tokens", "model.attention.window_start=64",
      "model.attention.window_end=32"},
     "model.attention.window_start",
     "window_start (64) exceeds window_end (32)"},
    {"WindowBeyondSeqLen",
     {"model.attention.window_unit=tokens", "model.attention.window_end=129"},
     "model.attention.window_end",
     "window_end (129) exceeds seq_len (128)"},
    {"CompileMemoryLimit",
     {"compile.memory_limit_mb=190"},
     "compile.memory_limit_mb",
     "compiling 4 layers is expected to need about 198 MiB, over "
     "compile.memory_limit_mb (190)"},
    {"BatchNotDivisible",
     {"training.batch=6"},
     "training.batch",
     "batch (6) must be a multiple of device_batch (4) * ranks (1) = 4"},
    {"BatchNotDivisibleByRanks",
     {"training.ranks=3"},
     "training.ranks",
     "device_batch (4) * ranks (3) = 12"},
    {"DecayStepsAndFraction",
     {"schedule.decay_steps=10", "schedule.decay_fraction=0.5"},
     "schedule.decay_fraction",
     "not both"},
    {"WarmupTooLong",
     {"schedule.warmup_steps=101"},
     "schedule.warmup_steps",
     "warmup_steps (101) exceeds training.steps (100)"},
    {"DecayTooLong",
     {"schedule.decay_steps=101"},
     "schedule.decay_steps",
     "decay_steps (101) exceeds training.steps (100)"},
    {"WarmupAndDecayOverlap",
     {"schedule.warmup_steps=60", "schedule.decay_fraction=0.5"},
     "schedule.warmup_steps",
     "overlap"},
    {"QkvSplitWithSeparateQkv",
     {"model.attention.qkv=separate", "optimizer.groups.hidden.qkv_split=true",
      "optimizer.groups.hidden.params=[\"blocks.*.attn.*\", "
      "\"blocks.*.mlp.*\"]"},
     "optimizer.groups.hidden.qkv_split",
     "qkv_split splits a fused (3 d, d) QKV matrix"},
    {"ParameterWithoutGroup",
     {"optimizer.groups.rest.params=[wte]"},
     "optimizer.groups",
     "parameter 'lm_head' of shape (257, 64) matches no optimizer group",
     false},
    {"ParameterInTwoGroups",
     {"optimizer.groups.extra={kind: adam, params: [lm_head], lr: 0.1}"},
     "optimizer.groups.extra.params",
     "parameter 'lm_head' matches both group 'rest' and group 'extra'"},
    {"GroupMatchingNothing",
     {"optimizer.groups.extra={kind: adam, params: [lm_heads], lr: 0.1}"},
     "optimizer.groups.extra.params",
     "group 'extra' matches no parameter of this model"},
    {"MuonHoldsAVector",
     {"model.shortcut_x0=true",
      "optimizer.groups.hidden.params=[\"blocks.*\"]"},
     "optimizer.groups.hidden.params",
     "matches 'blocks.0.lambdas' of shape (2); muon takes 2-D matrices only"},
    {"MuonHoldsTheEmbedding",
     {"optimizer.groups.hidden.params=[\"blocks.*\", wte]",
      "optimizer.groups.rest.params=[lm_head]"},
     "optimizer.groups.hidden.params",
     "muon takes the hidden matrices of the blocks only"},
};

INSTANTIATE_TEST_SUITE_P(SpecChecks, CrossFieldRule,
                         ::testing::ValuesIn(kRules),
                         [](const auto &info) { return info.param.name; });

TEST(SpecChecks, TheEnforcedRulesAllowTheBase) {
  // Each rule above fails only because of its overrides.
  ParseResult r = parseBase({});
  EXPECT_TRUE(r.ok) << r.error.str();
}

/// The error names the key written closest to the user: the extending
/// file's key over the base's, a --set over both.
TEST(SpecChecks, BlameFollowsTheMostDerivedKey) {
  ScratchDir dir("blame");
  dir.write("base.yaml", kBaseSpec);
  std::string derived =
      dir.write("derived.yaml", "extends: base.yaml\nmodel:\n  d_model: 96\n");
  ModelSpec spec;
  SpecError error;
  ASSERT_FALSE(parseSpecFile(derived, {}, spec, error));
  EXPECT_EQ(error.str(), derived +
                             ":3:3: error: model.d_model: n_head (2) * "
                             "head_dim (32) = 64 must equal d_model (96)");

  ASSERT_FALSE(parseSpecFile(derived, {"model.head_dim=40"}, spec, error));
  EXPECT_EQ(error.key, "model.head_dim");
  EXPECT_EQ(error.loc.file, "--set model.head_dim=40");

  // Only the base wrote the keys: the rule's first key, in the base.
  std::string badHeads = kBaseSpec;
  badHeads.replace(badHeads.find("n_head: 2"), 9, "n_head: 3");
  std::string heads = dir.write("heads.yaml", badHeads);
  std::string viaBase = dir.write("via.yaml", "extends: heads.yaml\n");
  ASSERT_FALSE(parseSpecFile(viaBase, {}, spec, error));
  EXPECT_EQ(error.key, "model.n_head");
  EXPECT_EQ(error.loc.file, heads);
  EXPECT_EQ(error.loc.line, 6);
}

TEST(SpecChecks, GroupAssignmentIsExact) {
  ParseResult r = parseBase({"model.shortcut_x0=true"});
  ASSERT_TRUE(r.ok) << r.error.str();
  // blocks.*.lambdas went to `rest` through its own pattern.
  ParseResult noScalars =
      parseBase({"model.shortcut_x0=true",
                 "optimizer.groups.rest.params=[wte, lm_head]"});
  ASSERT_FALSE(noScalars.ok);
  EXPECT_NE(noScalars.error.message.find("'blocks.0.lambdas'"),
            std::string::npos);
}

} // namespace
