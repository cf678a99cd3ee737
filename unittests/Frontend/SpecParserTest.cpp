//===- SpecParserTest.cpp - Keys, types, locations, extends, --set --------===//

#include "SpecTestUtil.h"

#include "frontend/SpecSchema.h"

using namespace gptc;
using namespace gptc::test;

namespace {

TEST(SpecParser, BaseSpecParses) {
  ParseResult r = parse(kBaseSpec);
  ASSERT_TRUE(r.ok) << r.error.str();
  EXPECT_EQ(r.spec.name, "base");
  EXPECT_EQ(r.spec.file, "test.yaml");
  EXPECT_EQ(r.spec.model.nLayer, 4);
  EXPECT_EQ(r.spec.training.gradAccum(), 2);
  ASSERT_EQ(r.spec.groups.size(), 2u);
  EXPECT_EQ(r.spec.groups[0].name, "hidden");
  EXPECT_EQ(r.spec.groups[0].kind, OptimizerKind::Muon);
  EXPECT_DOUBLE_EQ(r.spec.groups[0].lr, 0.02);
  EXPECT_EQ(r.spec.groups[1].kind, OptimizerKind::Adam);
  // Schema defaults fill what the spec leaves out.
  EXPECT_EQ(r.spec.model.activation, Activation::ReLU2);
  EXPECT_EQ(r.spec.training.ranks, 1);
  EXPECT_EQ(r.spec.groups[0].nsSteps, 5);
  EXPECT_DOUBLE_EQ(r.spec.groups[1].beta2, 0.95);
}

TEST(SpecParser, ErrorStringIsOneLine) {
  SpecError e{SourceLoc{"a.yaml", 3, 7}, "model.n_head", "bad"};
  EXPECT_EQ(e.str(), "a.yaml:3:7: error: model.n_head: bad");
  e.key.clear();
  EXPECT_EQ(e.str(), "a.yaml:3:7: error: bad");
  e.loc.line = 0;
  EXPECT_EQ(e.str(), "a.yaml: error: bad");
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// A value of the wrong type for every key of the schema, given with --set:
/// the error names exactly that key. A map is wrong for every value type.
TEST(SpecParser, EveryKeyRejectsAWrongType) {
  for (const SchemaEntry &entry : specSchema()) {
    if (!entry.set)
      continue; // `extends` is consumed by the loader
    std::string path = entry.path;
    if (entry.isGroupKey())
      path.replace(path.find('*'), 1,
                   entry.scope == OptimizerKind::Adam ? "rest" : "hidden");
    ParseResult r = parseBase({path + "={x: 1}"});
    ASSERT_FALSE(r.ok) << path;
    EXPECT_EQ(r.error.key, path);
    EXPECT_NE(r.error.message.find("expected"), std::string::npos)
        << r.error.str();
    EXPECT_NE(r.error.message.find("got a map"), std::string::npos)
        << r.error.str();
  }
}

/// Every spelling of every enum key is accepted (a later cross-field rule
/// may still object, but not to the spelling).
TEST(SpecParser, EveryEnumSpellingIsAccepted) {
  for (const SchemaEntry &entry : specSchema()) {
    if (entry.kind != ValueKind::Enum)
      continue;
    std::string path = entry.path;
    if (entry.isGroupKey())
      path.replace(path.find('*'), 1,
                   entry.scope == OptimizerKind::Adam ? "rest" : "hidden");
    for (const std::string &spelling : *entry.spellings) {
      ParseResult r = parseBase({path + "=" + spelling});
      if (!r.ok) {
        EXPECT_EQ(r.error.message.find("unknown value"), std::string::npos)
            << r.error.str();
      }
    }
  }
}

struct TypeCase {
  const char *set;
  const char *key;
  const char *message;
};

/// How gtest (and ctest's test names) show a case: its --set argument.
void PrintTo(const TypeCase &c, std::ostream *os) { *os << c.set; }

class WrongValue : public ::testing::TestWithParam<TypeCase> {};

TEST_P(WrongValue, IsRejectedWithItsMessage) {
  const TypeCase &c = GetParam();
  ParseResult r = parseBase({c.set});
  ASSERT_FALSE(r.ok) << c.set;
  EXPECT_EQ(r.error.key, c.key);
  EXPECT_EQ(r.error.message, c.message) << r.error.str();
}

INSTANTIATE_TEST_SUITE_P(
    SpecParser, WrongValue,
    ::testing::Values(
        TypeCase{"model.n_layer=1.5", "model.n_layer",
                 "expected an integer, got '1.5'"},
        TypeCase{"model.n_layer=\"4\"", "model.n_layer",
                 "expected an integer, got the string \"4\""},
        TypeCase{"model.n_layer=[4]", "model.n_layer",
                 "expected an integer, got a list"},
        TypeCase{"model.n_layer=", "model.n_layer",
                 "expected an integer, got nothing (null)"},
        TypeCase{"model.n_layer=0", "model.n_layer",
                 "0 is out of range (must be in [1, 10000])"},
        TypeCase{"model.n_layer=99999999999999999999", "model.n_layer",
                 "99999999999999999999 is out of range (must be in [1, "
                 "10000])"},
        TypeCase{"training.steps=0x10", "training.steps",
                 "expected an integer, got '0x10'"},
        TypeCase{"optimizer.groups.hidden.lr=fast",
                 "optimizer.groups.hidden.lr", "expected a number, got 'fast'"},
        TypeCase{"optimizer.groups.hidden.lr=.inf",
                 "optimizer.groups.hidden.lr", "expected a number, got '.inf'"},
        TypeCase{"optimizer.groups.hidden.lr=-0.1",
                 "optimizer.groups.hidden.lr",
                 "-0.1 is out of range (must be in [0, 1000000])"},
        TypeCase{"model.norm_eps=0", "model.norm_eps",
                 "0 is out of range (must be in (0, 1))"},
        TypeCase{"model.attention.causal=yes", "model.attention.causal",
                 "expected true or false, got 'yes'"},
        TypeCase{"model.attention.causal=1", "model.attention.causal",
                 "expected true or false, got '1'"},
        TypeCase{"name=[a, b]", "name", "expected a string, got a list"},
        TypeCase{"model.activation=relu", "model.activation",
                 "unknown value 'relu'; expected one of: gelu, relu2 (did you "
                 "mean 'relu2'?)"},
        TypeCase{"model.activation=[gelu]", "model.activation",
                 "expected a name, got a list"},
        TypeCase{"optimizer.groups.hidden.params=wte",
                 "optimizer.groups.hidden.params",
                 "expected a list (list of 1+ string), got 'wte'"},
        TypeCase{"optimizer.groups.hidden.params=[]",
                 "optimizer.groups.hidden.params", "expected a non-empty list"},
        TypeCase{"optimizer.groups.hidden.params=[[wte]]",
                 "optimizer.groups.hidden.params",
                 "expected a string, got a list"},
        TypeCase{"optimizer.groups.rest.betas=[0.9]",
                 "optimizer.groups.rest.betas", "expected 2 values, got 1"},
        TypeCase{"optimizer.groups.rest.betas=[0.9, 1.0]",
                 "optimizer.groups.rest.betas",
                 "1.0 is out of range (must be in [0, 1))"},
        TypeCase{"optimizer.groups.rest.betas=[0.9, x]",
                 "optimizer.groups.rest.betas", "expected a number, got 'x'"},
        TypeCase{"model.attention.window_pattern=[long, medium]",
                 "model.attention.window_pattern",
                 "unknown value 'medium'; expected one of: long, short"},
        TypeCase{"model.attention.window_pattern=long",
                 "model.attention.window_pattern",
                 "expected a list (list of (long, short)), got 'long'"}));

TEST(SpecParser, AcceptedSpellingsOfScalars) {
  ParseResult r = parseBase({"model.attention.causal=True", "name=123",
                             "optimizer.groups.hidden.lr=+2e-2",
                             "training.seed=+7", "model.init_std=.5"});
  ASSERT_TRUE(r.ok) << r.error.str();
  EXPECT_TRUE(r.spec.model.attention.causal);
  EXPECT_EQ(r.spec.name, "123");
  EXPECT_DOUBLE_EQ(r.spec.groups[0].lr, 0.02);
  EXPECT_EQ(r.spec.training.seed, 7);
  EXPECT_DOUBLE_EQ(r.spec.model.initStd, 0.5);
}

//===----------------------------------------------------------------------===//
// Keys and locations
//===----------------------------------------------------------------------===//

TEST(SpecParser, UnknownKeyPointsAtTheKey) {
  std::string text = kBaseSpec;
  text.replace(text.find("  n_head: 2"), 11, "  n_heads: 2");
  ParseResult r = parse(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:6:3: error: model.n_heads: unknown key "
                           "'n_heads' in 'model' (did you mean 'n_head'?)");
}

TEST(SpecParser, KeyInTheWrongSectionSuggestsItsPath) {
  ParseResult r = parse(std::string(kBaseSpec) + "n_layer: 4\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:25:1: error: n_layer: unknown key "
                           "'n_layer' at the top level (did you mean "
                           "'model.n_layer'?)");
}

TEST(SpecParser, DottedKeysAreNotPaths) {
  ParseResult r = parse(std::string(kBaseSpec) + "model.mlp_ratio: 2\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:25:1: error: model.mlp_ratio: a key is "
                           "one name, not a dotted path; nest maps instead "
                           "(model: {n_layer: 4})");
}

TEST(SpecParser, BadValuePointsAtTheValue) {
  std::string text = kBaseSpec;
  text.replace(text.find("n_layer: 4"), 10, "n_layer: four");
  ParseResult r = parse(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.loc.line, 4);
  EXPECT_EQ(r.error.loc.col, 12);
  EXPECT_EQ(r.error.key, "model.n_layer");
}

TEST(SpecParser, BadListElementPointsAtTheElement) {
  std::string text = kBaseSpec;
  text.replace(text.find("params: [wte, lm_head"), 21, "params: [wte, {a: 1}");
  ParseResult r = parse(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(),
            "test.yaml:23:21: error: optimizer.groups.rest.params: expected a "
            "string, got a map");
}

TEST(SpecParser, OmittedValuePointsAtItsKey) {
  std::string text = kBaseSpec;
  text.replace(text.find("  steps: 100"), 12, "  steps:");
  ParseResult r = parse(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:14:3: error: training.steps: expected "
                           "an integer, got nothing (null)");
}

TEST(SpecParser, SectionMustBeAMap) {
  std::string text = kBaseSpec;
  text.replace(text.find("  attention:\n    qkv: fused"), 27,
               "  attention: fused");
  ParseResult r = parse(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:8:14: error: model.attention: expected "
                           "a map of keys, got 'fused'");
}

TEST(SpecParser, LocsRecordEveryKeyAndSection) {
  ParseResult r = parse(kBaseSpec);
  ASSERT_TRUE(r.ok) << r.error.str();
  auto at = [&](const std::string &key) {
    SourceLoc loc = r.spec.locOf(key);
    return std::to_string(loc.line) + ":" + std::to_string(loc.col);
  };
  EXPECT_EQ(at("model"), "2:1");
  EXPECT_EQ(at("model.n_head"), "6:3");
  EXPECT_EQ(at("model.attention.qkv"), "9:5");
  EXPECT_EQ(at("optimizer.groups.hidden"), "17:5");
  EXPECT_EQ(at("optimizer.groups.hidden.lr"), "20:7");
  // Unset keys fall back to their nearest written ancestor, then the file.
  EXPECT_EQ(at("model.attention.causal"), "8:3");
  EXPECT_EQ(at("schedule.decay_steps"), "1:1");
  EXPECT_EQ(r.spec.groups[0].loc.line, 17);
  EXPECT_EQ(r.spec.groups[0].loc.col, 5);
}

TEST(SpecParser, RequiredKeys) {
  std::string noDModel = kBaseSpec;
  noDModel.erase(noDModel.find("  d_model: 64\n"), 14);
  ParseResult r = parse(noDModel);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:2:1: error: model.d_model: missing "
                           "required key 'd_model' in 'model'");

  std::string noName = kBaseSpec;
  noName.replace(0, 10, "\n");
  r = parse(noName);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:1:1: error: name: missing required key "
                           "'name' at the top level");

  std::string noKind = kBaseSpec;
  noKind.erase(noKind.find("      kind: adam\n"), 17);
  r = parse(noKind);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:21:5: error: optimizer.groups.rest.kind: "
                           "missing required key 'kind' (muon or adam) in "
                           "optimizer group 'rest'");

  std::string noLr = kBaseSpec;
  noLr.erase(noLr.find("      lr: 0.02\n"), 15);
  r = parse(noLr);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.key, "optimizer.groups.hidden.lr");
  EXPECT_EQ(r.error.loc.line, 17);

  std::string noGroups = kBaseSpec;
  noGroups.resize(noGroups.find("optimizer:"));
  r = parse(noGroups + "optimizer:\n  groups: {}\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:16:3: error: optimizer.groups: at least "
                           "one optimizer group is required");
}

TEST(SpecParser, KindSpecificGroupKeys) {
  ParseResult r = parseBase({"optimizer.groups.rest.ns_steps=3"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(),
            "--set optimizer.groups.rest.ns_steps=3:1:29: error: "
            "optimizer.groups.rest.ns_steps: 'ns_steps' applies to muon "
            "groups only; group 'rest' is adam");
  r = parseBase({"optimizer.groups.hidden.betas=[0.9, 0.99]"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.key, "optimizer.groups.hidden.betas");
  EXPECT_NE(r.error.message.find("applies to adam groups only"),
            std::string::npos);
}

TEST(SpecParser, GroupNamesAreIdentifiers) {
  ParseResult r = parseBase({"optimizer.groups={\"a b\": {kind: adam}}"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.key, "optimizer.groups.a b");
  EXPECT_NE(r.error.message.find("letters, digits"), std::string::npos);
}

TEST(SpecParser, DuplicateKeyIsAnError) {
  ParseResult r = parse(std::string(kBaseSpec) + "name: again\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "test.yaml:25:1: error: name: duplicate key 'name' "
                           "(first at test.yaml:1:1)");
}

//===----------------------------------------------------------------------===//
// --set
//===----------------------------------------------------------------------===//

TEST(SpecParser, SetOverridesAndCreatesKeys) {
  ParseResult r = parseBase({"model.n_layer=6", "schedule.decay_steps=10",
                             "model.attention={causal: true, scale: 0.5}"});
  ASSERT_TRUE(r.ok) << r.error.str();
  EXPECT_EQ(r.spec.model.nLayer, 6);
  EXPECT_EQ(r.spec.schedule.decaySteps, 10);
  // A map value merges into the section like an extending file would.
  EXPECT_EQ(r.spec.model.attention.qkv, QKVLayout::Fused);
  EXPECT_DOUBLE_EQ(r.spec.model.attention.scale, 0.5);
  SourceLoc loc = r.spec.locOf("model.n_layer");
  EXPECT_EQ(loc.file, "--set model.n_layer=6");
  EXPECT_EQ(loc.col, 13);
}

TEST(SpecParser, LaterSetWins) {
  ParseResult r = parseBase({"model.n_layer=6", "model.n_layer=8"});
  ASSERT_TRUE(r.ok) << r.error.str();
  EXPECT_EQ(r.spec.model.nLayer, 8);
}

TEST(SpecParser, SetErrorsPointIntoTheArgument) {
  ParseResult r = parseBase({"model.n_layer=abc"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "--set model.n_layer=abc:1:21: error: "
                           "model.n_layer: expected an integer, got 'abc'");

  r = parseBase({"optimizer.groups.rest.betas=[0.9, oops]"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.loc.col, 41); // the 'o' of oops

  r = parseBase({"model.n_layerz=4"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.loc.col, 13);
  EXPECT_EQ(r.error.key, "model.n_layerz");

  r = parseBase({"model.n_layer.x=4"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "--set model.n_layer.x=4:1:13: error: "
                           "model.n_layer: cannot set 'model.n_layer.x': "
                           "'model.n_layer' is '4' (at test.yaml:4:12), not a "
                           "map");

  r = parseBase({"model.n_layer"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.str(), "--set model.n_layer:1:7: error: expected --set "
                           "KEY=VALUE (e.g. --set training.steps=100)");

  r = parseBase({"model..n_layer=4"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.loc.col, 13);

  r = parseBase({"model.n_layer=[4"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.loc.file, "--set model.n_layer=[4");
  EXPECT_NE(r.error.message.find("invalid YAML"), std::string::npos);

  r = parseBase({"extends=other.yaml"});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.key, "extends");
}

//===----------------------------------------------------------------------===//
// extends
//===----------------------------------------------------------------------===//

TEST(SpecParser, ExtendsMergesAndOverridePrecedence) {
  ScratchDir dir("extends");
  dir.write("base/base.yaml", kBaseSpec);
  // Relative to the extending file; maps merge, scalars and lists replace.
  std::string derived = dir.write("derived.yaml", R"(extends: base/base.yaml
name: derived
model:
  n_layer: 6
training:
  steps: 50
optimizer:
  groups:
    rest:
      params: [wte, lm_head]
)");
  ModelSpec spec;
  SpecError error;
  ASSERT_TRUE(parseSpecFile(derived, {"training.steps=70"}, spec, error))
      << error.str();
  EXPECT_EQ(spec.name, "derived");
  EXPECT_EQ(spec.file, derived);
  EXPECT_EQ(spec.model.nLayer, 6);    // derived
  EXPECT_EQ(spec.model.dModel, 64);   // base, merged map
  EXPECT_EQ(spec.training.steps, 70); // --set beats the file
  EXPECT_EQ(spec.training.batch, 8);  // base
  ASSERT_EQ(spec.groups.size(), 2u);  // group map merged
  EXPECT_DOUBLE_EQ(spec.groups[1].lr, 0.001);
  EXPECT_EQ(spec.groups[1].params,
            (std::vector<std::string>{"wte", "lm_head"})); // list replaced
  EXPECT_EQ(spec.locOf("model.n_layer").file, derived);
  EXPECT_EQ(spec.locOf("model.n_layer").line, 4);
  EXPECT_EQ(spec.locOf("model.d_model").file, dir.file("base/base.yaml"));
  EXPECT_EQ(spec.locOf("model.d_model").line, 5);
}

TEST(SpecParser, ExtendsChains) {
  ScratchDir dir("chain");
  dir.write("a.yaml", kBaseSpec);
  dir.write("b.yaml", "extends: a.yaml\nname: b\nmodel:\n  n_layer: 2\n");
  std::string c = dir.write("c.yaml", "extends: b.yaml\nname: c\n");
  ModelSpec spec;
  SpecError error;
  ASSERT_TRUE(parseSpecFile(c, {}, spec, error)) << error.str();
  EXPECT_EQ(spec.name, "c");
  EXPECT_EQ(spec.model.nLayer, 2);
  EXPECT_EQ(spec.model.vocabSize, 257);
}

TEST(SpecParser, ExtendsErrors) {
  ScratchDir dir("extends-errors");
  ModelSpec spec;
  SpecError error;

  std::string missing =
      dir.write("missing.yaml", "name: x\nextends: nope.yaml\n");
  ASSERT_FALSE(parseSpecFile(missing, {}, spec, error));
  EXPECT_EQ(error.str(), missing + ":2:10: error: extends: cannot open spec '" +
                             dir.file("nope.yaml") + "': no such file");

  std::filesystem::create_directories(dir.path / "adir");
  std::string toDir = dir.write("todir.yaml", "extends: adir\n");
  ASSERT_FALSE(parseSpecFile(toDir, {}, spec, error));
  EXPECT_NE(error.message.find("is a directory"), std::string::npos);
  EXPECT_EQ(error.loc.line, 1);

  std::string notString = dir.write("list.yaml", "extends: [a.yaml]\n");
  ASSERT_FALSE(parseSpecFile(notString, {}, spec, error));
  EXPECT_EQ(error.str(), notString + ":1:10: error: extends: expected the "
                                     "file name of a base spec, got a list");

  std::string a = dir.write("a.yaml", "extends: b.yaml\nname: a\n");
  std::string b = dir.write("b.yaml", "name: b\nextends: a.yaml\n");
  ASSERT_FALSE(parseSpecFile(a, {}, spec, error));
  EXPECT_EQ(error.str(),
            b + ":2:10: error: extends: cycle: " + a + " -> " + b + " -> " + a);

  std::string self = dir.write("self.yaml", "extends: self.yaml\n");
  ASSERT_FALSE(parseSpecFile(self, {}, spec, error));
  EXPECT_NE(error.message.find("cycle"), std::string::npos);

  // An error inside the base names the base file.
  dir.write("broken.yaml", "name: [\n");
  std::string user = dir.write("user.yaml", "extends: broken.yaml\n");
  ASSERT_FALSE(parseSpecFile(user, {}, spec, error));
  EXPECT_EQ(error.loc.file, dir.file("broken.yaml"));
  EXPECT_NE(error.message.find("invalid YAML"), std::string::npos);
}

TEST(SpecParser, MissingTopLevelFile) {
  ModelSpec spec;
  SpecError error;
  ASSERT_FALSE(parseSpecFile("/nonexistent/spec.yaml", {}, spec, error));
  EXPECT_EQ(error.str(), "/nonexistent/spec.yaml: error: cannot open spec "
                         "'/nonexistent/spec.yaml': no such file");
  ASSERT_FALSE(parseSpecFile(::testing::TempDir(), {}, spec, error));
  EXPECT_NE(error.message.find("is a directory"), std::string::npos);
}

} // namespace
