//===- ParamNamesTest.cpp - The one table of other trainers' names --------===//

#include "runtime/ParamNames.h"

#include <gtest/gtest.h>

using namespace gptc::runtime;

namespace {

TEST(ParamNamesTest, Schemes) {
  NameScheme s = NameScheme::Gptc;
  EXPECT_TRUE(parseNameScheme("hf", s));
  EXPECT_EQ(s, NameScheme::HuggingFace);
  EXPECT_TRUE(parseNameScheme("modded-nanogpt", s));
  EXPECT_EQ(s, NameScheme::ModdedNanoGpt);
  EXPECT_TRUE(parseNameScheme("gptc", s));
  EXPECT_EQ(s, NameScheme::Gptc);
  EXPECT_FALSE(parseNameScheme("huggingface", s));
  EXPECT_STREQ(nameSchemeWords(), "modded-nanogpt, hf or gptc");
}

TEST(ParamNamesTest, ModdedNanoGptBothWays) {
  for (const char *gptc :
       {"wte", "blocks.0.attn.q", "blocks.11.attn.k", "blocks.3.attn.v",
        "blocks.3.attn.proj", "blocks.3.mlp.fc", "blocks.3.mlp.proj", "lm_head",
        "value_embeds.0", "skip_weights", "blocks.2.lambdas",
        "blocks.2.attn.qkv"}) {
    ExternalName e = externalName(gptc, NameScheme::ModdedNanoGpt);
    EXPECT_EQ(gptcNameOfModded(e.name), gptc) << e.name;
    EXPECT_EQ(gptcNameOfModded("_orig_mod." + e.name), gptc) << e.name;
    EXPECT_EQ(e.parts, 1);
    EXPECT_FALSE(e.transposed);
  }
  EXPECT_EQ(externalName("blocks.11.attn.k", NameScheme::ModdedNanoGpt).name,
            "transformer.h.11.attn.c_k.weight");
  ExternalName ve = externalName("value_embeds.0", NameScheme::ModdedNanoGpt);
  EXPECT_FALSE(ve.mapped);
  EXPECT_EQ(ve.name, "gptc.value_embeds.0");
  // Names of neither scheme pass through; an index must be digits.
  EXPECT_EQ(gptcNameOfModded("transformer.h.x.attn.c_q.weight"),
            "transformer.h.x.attn.c_q.weight");
  EXPECT_EQ(gptcNameOfModded("_orig_mod.foo"), "foo");
}

TEST(ParamNamesTest, HuggingFaceGpt2) {
  ExternalName k = externalName("blocks.1.attn.k", NameScheme::HuggingFace);
  EXPECT_EQ(k.name, "transformer.h.1.attn.c_attn.weight");
  EXPECT_EQ(k.part, 1);
  EXPECT_EQ(k.parts, 3);
  EXPECT_TRUE(k.transposed);
  ExternalName qkv = externalName("blocks.1.attn.qkv", NameScheme::HuggingFace);
  EXPECT_EQ(qkv.name, k.name);
  EXPECT_EQ(qkv.parts, 1);
  EXPECT_TRUE(
      externalName("blocks.1.mlp.fc", NameScheme::HuggingFace).transposed);
  ExternalName wte = externalName("wte", NameScheme::HuggingFace);
  EXPECT_EQ(wte.name, "transformer.wte.weight");
  EXPECT_FALSE(wte.transposed);
  EXPECT_EQ(externalName("skip_weights", NameScheme::HuggingFace).name,
            "gptc.skip_weights");
  EXPECT_EQ(externalName("skip_weights", NameScheme::Gptc).name,
            "skip_weights");
}

} // namespace
