//===- SchemaTest.cpp - Schema table, docs, and the specs in models/ ------===//

#include "SpecTestUtil.h"

#include "frontend/OptimizerTable.h"
#include "frontend/Parameters.h"
#include "frontend/SpecSchema.h"

#include <algorithm>

#include <filesystem>
#include <set>
#include <sstream>

using namespace gptc;
using namespace gptc::test;

namespace {

const std::string kModels = GPTC_SOURCE_DIR "/models";

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

ModelSpec loadModel(const std::string &name) {
  ModelSpec spec;
  SpecError error;
  EXPECT_TRUE(parseSpecFile(kModels + "/" + name, {}, spec, error))
      << error.str();
  return spec;
}

TEST(Schema, EntriesAreWellFormed) {
  std::set<std::string> paths;
  for (const SchemaEntry &e : specSchema()) {
    EXPECT_TRUE(paths.insert(e.path).second) << "duplicate " << e.path;
    EXPECT_FALSE(e.doc.empty()) << e.path;
    EXPECT_EQ(e.doc.find('\n'), std::string::npos) << e.path;
    EXPECT_EQ(e.set == nullptr, e.path == "extends") << e.path;
    const bool isEnum =
        e.kind == ValueKind::Enum || e.kind == ValueKind::EnumList;
    EXPECT_EQ(isEnum, e.spellings != nullptr) << e.path;
    EXPECT_TRUE(!e.scope || e.isGroupKey()) << e.path;
    EXPECT_FALSE(e.typeString().empty()) << e.path;
  }
  // Every default converts: a spec of required keys only builds.
  EXPECT_TRUE(parse(kBaseSpec).ok);
}

TEST(Schema, ARequiredOnlySpecGetsTheDocumentedDefaults) {
  // The schema is the only place a default lives (ModelSpec's fields are
  // value-initialised); these are the values it documents, so a changed
  // default shows here.
  ParseResult r = parse(kBaseSpec);
  ASSERT_TRUE(r.ok) << r.error.str();
  const ModelShape &m = r.spec.model;
  EXPECT_EQ(m.vocabPadMultiple, 1);
  EXPECT_EQ(m.mlpRatio, 4);
  EXPECT_EQ(m.activation, Activation::ReLU2);
  EXPECT_EQ(m.normEps, 1e-6);
  EXPECT_EQ(m.initStd, 0.02);
  EXPECT_EQ(m.softcap, Softcap::None);
  EXPECT_EQ(m.softcapValue, 30.0);
  EXPECT_EQ(m.softcapScale, 7.5);
  EXPECT_EQ(m.attention.rotaryBase, 10000.0);
  EXPECT_TRUE(m.attention.causal);
  EXPECT_EQ(m.attention.bosToken, 50256);
  EXPECT_EQ(m.attention.windowGranularity, 1);
  EXPECT_EQ(r.spec.training.ranks, 1);
  EXPECT_EQ(r.spec.training.dtype, DType::F32);
  EXPECT_EQ(r.spec.training.timingSkipSteps, 10);
  EXPECT_EQ(r.spec.validation.every, 125);
  EXPECT_EQ(r.spec.validation.tokens, 10485760);
  EXPECT_EQ(r.spec.data.train, "data/*_train_*.bin");
  const OptimizerGroup &muon = r.spec.groups[0];
  const OptimizerGroup &adam = r.spec.groups[1];
  EXPECT_EQ(muon.momentum, 0.95);
  EXPECT_EQ(muon.momentumForm, MomentumForm::Sum);
  EXPECT_EQ(muon.momentumWarmupStart, 0.85);
  EXPECT_EQ(muon.nsCoefficients,
            (std::vector<double>{3.4445, -4.7750, 2.0315}));
  EXPECT_EQ(muon.nsEps, 1e-7);
  EXPECT_EQ(muon.nsForm, NSForm::PolynomialThenApply);
  EXPECT_EQ(muon.nsNormalize, NSNormalize::AfterCast);
  EXPECT_EQ(muon.nsDtype, DType::BF16);
  EXPECT_EQ(muon.updateScale, UpdateScale::None);
  EXPECT_EQ(muon.distribution, MuonDistribution::None);
  EXPECT_EQ(adam.beta1, 0.9);
  EXPECT_EQ(adam.beta2, 0.95);
  EXPECT_EQ(adam.eps, 1e-8);
  EXPECT_TRUE(adam.decoupledWeightDecay);
}

TEST(Schema, ToStringGivesTheYamlSpelling) {
  EXPECT_STREQ(toString(QKNorm::BeforeRotary), "before_rotary");
  EXPECT_STREQ(toString(MuonDistribution::AllGatherGrouped),
               "all_gather_grouped");
  EXPECT_STREQ(toString(DType::BF16), "bf16");
  EXPECT_STREQ(toString(static_cast<DType>(7)), "<invalid>");
}

TEST(Schema, FindEntriesAndSections) {
  ASSERT_NE(findSchemaEntry("optimizer.groups.*.lr"), nullptr);
  EXPECT_EQ(findSchemaEntry("optimizer.groups.hidden.lr"), nullptr);
  EXPECT_TRUE(isSchemaSection("model.attention"));
  EXPECT_FALSE(isSchemaSection("model.n_layer"));
  std::vector<std::string> top = schemaChildren("");
  EXPECT_NE(std::find(top.begin(), top.end(), "optimizer"), top.end());
  EXPECT_NE(std::find(top.begin(), top.end(), "name"), top.end());
  EXPECT_EQ(closestSpelling("n_heads", schemaChildren("model")), "n_head");
  EXPECT_EQ(closestSpelling("zzzzzz", schemaChildren("model")), "");
}

/// models/README.md embeds the table rendered from the schema, verbatim.
TEST(Schema, ReadmeTableMatchesTheSchema) {
  const std::string readme = readFile(kModels + "/README.md");
  const std::string begin = "<!-- BEGIN SCHEMA -->",
                    end = "<!-- END SCHEMA -->";
  size_t from = readme.find(begin), to = readme.find(end);
  ASSERT_NE(from, std::string::npos) << "missing " << begin;
  ASSERT_NE(to, std::string::npos) << "missing " << end;
  from += begin.size();
  EXPECT_EQ(readme.substr(from, to - from), "\n" + renderSchemaMarkdown())
      << "models/README.md is out of date: run "
         "`gptc-spec-doc --update models/README.md`";
  // A row per key, then (after a blank line) a row per optimizer.
  const std::string table = renderSchemaMarkdown();
  const std::string keys = table.substr(0, table.find("\n\n") + 1),
                    optimizers = table.substr(keys.size());
  EXPECT_EQ(std::count(keys.begin(), keys.end(), '\n'),
            static_cast<long>(specSchema().size() + 2));
  EXPECT_EQ(std::count(optimizers.begin(), optimizers.end(), '\n'),
            static_cast<long>(optimizerTable().size() + 5));
}

/// Parsing rejects unknown keys, so every key the specs use is documented.
TEST(Models, EverySpecParses) {
  std::set<std::string> found;
  for (const auto &file : std::filesystem::directory_iterator(kModels)) {
    if (file.path().extension() != ".yaml")
      continue;
    ModelSpec spec;
    SpecError error;
    EXPECT_TRUE(parseSpecFile(file.path().string(), {}, spec, error))
        << error.str();
    EXPECT_EQ(spec.name, file.path().stem().string());
    found.insert(file.path().filename().string());
  }
  for (const char *name :
       {"speedrun-r03-muon.yaml", "speedrun-r04-muon-qkv.yaml",
        "speedrun-r08-untied.yaml", "speedrun-r15-unet-ve.yaml",
        "speedrun-r21.yaml", "tiny-r03.yaml", "tiny-r04.yaml", "tiny-r08.yaml",
        "tiny-r15.yaml", "tiny-r21.yaml"})
    EXPECT_TRUE(found.count(name)) << "missing models/" << name;
}

/// A tiny spec is its record at CPU size: every feature is the same.
void expectSameFeatures(const ModelSpec &tiny, const ModelSpec &full) {
  const ModelShape &t = tiny.model, &f = full.model;
  EXPECT_EQ(t.activation, f.activation);
  EXPECT_EQ(t.tiedEmbedding, f.tiedEmbedding);
  EXPECT_EQ(t.embedNorm, f.embedNorm);
  EXPECT_EQ(t.normEpsFromDtype, f.normEpsFromDtype);
  EXPECT_EQ(t.attnBranchScale, f.attnBranchScale);
  EXPECT_EQ(t.lmHeadZeroInit, f.lmHeadZeroInit);
  EXPECT_EQ(t.outProjZeroInit, f.outProjZeroInit);
  EXPECT_EQ(t.shortcutX0, f.shortcutX0);
  EXPECT_EQ(t.valueResidual, f.valueResidual);
  EXPECT_EQ(t.unetSkips, f.unetSkips);
  EXPECT_EQ(t.valueEmbeddings, f.valueEmbeddings);
  EXPECT_EQ(t.softcap, f.softcap);
  EXPECT_EQ(t.vocabPadMultiple > 1, f.vocabPadMultiple > 1);
  EXPECT_EQ(t.attention.qkv, f.attention.qkv);
  EXPECT_EQ(t.attention.qkNorm, f.attention.qkNorm);
  EXPECT_EQ(t.attention.rotary, f.attention.rotary);
  EXPECT_EQ(t.attention.scale, f.attention.scale);
  EXPECT_EQ(t.attention.causal, f.attention.causal);
  EXPECT_EQ(t.attention.documentMask, f.attention.documentMask);
  EXPECT_EQ(t.attention.windowUnit, f.attention.windowUnit);
  EXPECT_EQ(t.attention.windowRounding, f.attention.windowRounding);
  EXPECT_EQ(t.attention.layerWindows.empty(), f.attention.layerWindows.empty());
  EXPECT_EQ(tiny.training.dtype, full.training.dtype);
  EXPECT_EQ(tiny.schedule.warmupSteps > 0, full.schedule.warmupSteps > 0);
  EXPECT_EQ(tiny.schedule.lrFloor, full.schedule.lrFloor);
  ASSERT_EQ(tiny.groups.size(), full.groups.size());
  for (size_t i = 0; i < tiny.groups.size(); ++i) {
    const OptimizerGroup &a = tiny.groups[i], &b = full.groups[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.lr, b.lr);
    EXPECT_EQ(a.momentumForm, b.momentumForm);
    EXPECT_EQ(a.momentumWarmupSteps > 0, b.momentumWarmupSteps > 0);
    EXPECT_EQ(a.nsForm, b.nsForm);
    EXPECT_EQ(a.nsNormalize, b.nsNormalize);
    EXPECT_EQ(a.updateScale, b.updateScale);
    EXPECT_EQ(a.qkvSplit, b.qkvSplit);
    EXPECT_EQ(a.distribution, b.distribution);
    EXPECT_EQ(a.beta1, b.beta1);
    EXPECT_EQ(a.eps, b.eps);
  }
  // CPU size, one rank, byte-level tokens.
  EXPECT_EQ(t.vocabSize, 257);
  EXPECT_EQ(t.attention.bosToken, 256);
  EXPECT_LE(t.dModel, 64);
  EXPECT_EQ(tiny.training.ranks, 1);
  EXPECT_LE(tiny.training.steps, 200);
  EXPECT_LE(tiny.training.seqLen, 512);
}

TEST(Models, TinySpecsKeepTheirRecordsFeatures) {
  const std::pair<const char *, const char *> pairs[] = {
      {"tiny-r03.yaml", "speedrun-r03-muon.yaml"},
      {"tiny-r04.yaml", "speedrun-r04-muon-qkv.yaml"},
      {"tiny-r08.yaml", "speedrun-r08-untied.yaml"},
      {"tiny-r15.yaml", "speedrun-r15-unet-ve.yaml"},
      {"tiny-r21.yaml", "speedrun-r21.yaml"}};
  for (const auto &[tiny, full] : pairs) {
    SCOPED_TRACE(tiny);
    expectSameFeatures(loadModel(tiny), loadModel(full));
  }
  EXPECT_EQ(loadModel("tiny-r04.yaml").training.gradAccum(), 2);
}

/// Numbers from REFERENCE.md that are easy to get wrong.
TEST(Models, RecordNumbers) {
  ModelSpec r3 = loadModel("speedrun-r03-muon.yaml");
  EXPECT_DOUBLE_EQ(r3.groups[1].lr, 0.018);
  EXPECT_DOUBLE_EQ(r3.groups[0].lr, 0.0018);
  EXPECT_EQ(r3.schedule.warmupSteps, 250);
  EXPECT_EQ(r3.schedule.decaySteps, 2000);
  EXPECT_EQ(r3.training.steps, 7000);
  EXPECT_EQ(r3.model.attention.qkv, QKVLayout::Fused);
  EXPECT_EQ(r3.groups[1].nsForm, NSForm::ApplyThenCombine);

  ModelSpec r4 = loadModel("speedrun-r04-muon-qkv.yaml");
  EXPECT_DOUBLE_EQ(r4.groups[1].lr, 0.00036);
  EXPECT_EQ(r4.groups[1].updateScale, UpdateScale::SqrtMaxDim);
  EXPECT_TRUE(r4.groups[1].qkvSplit);
  EXPECT_EQ(r4.schedule.decaySteps, 1800);
  EXPECT_EQ(r4.training.steps, 6200);

  ModelSpec r8 = loadModel("speedrun-r08-untied.yaml");
  EXPECT_EQ(r8.model.paddedVocab(), 50304);
  EXPECT_EQ(r8.groups.size(), 3u);
  EXPECT_DOUBLE_EQ(r8.groups[0].lr, 0.3);
  EXPECT_DOUBLE_EQ(r8.groups[1].lr, 0.002);
  EXPECT_DOUBLE_EQ(r8.groups[2].lr, 0.02);
  EXPECT_EQ(r8.groups[2].updateScale, UpdateScale::SqrtMax1Ratio);
  EXPECT_EQ(r8.schedule.decaySteps, 1308);
  EXPECT_EQ(r8.training.steps, 4578);

  ModelSpec r15 = loadModel("speedrun-r15-unet-ve.yaml");
  EXPECT_EQ(r15.training.seqLen * r15.training.batch, 524288);
  EXPECT_EQ(r15.training.steps, 1480);
  EXPECT_EQ(r15.schedule.decaySteps, 600);
  EXPECT_EQ(r15.groups[3].momentumForm, MomentumForm::Lerp);
  EXPECT_EQ(r15.groups[3].momentumWarmupSteps, 300);
  EXPECT_DOUBLE_EQ(r15.groups[3].lr, 0.05);
  EXPECT_DOUBLE_EQ(r15.groups[0].beta1, 0.8);
  EXPECT_EQ(windowTokens(r15, 0, 0), 64);
  EXPECT_EQ(windowTokens(r15, 1480, 0), 1792);

  ModelSpec r21 = loadModel("speedrun-r21.yaml");
  EXPECT_EQ(r21.training.seqLen * r21.training.batch, 393216);
  EXPECT_DOUBLE_EQ(r21.schedule.decayFraction, 0.4);
  EXPECT_DOUBLE_EQ(r21.schedule.lrFloor, 0.1);
  EXPECT_DOUBLE_EQ(r21.groups[0].eps, 1e-10);
  EXPECT_DOUBLE_EQ(r21.model.attention.scale, 0.12);
  EXPECT_EQ(r21.model.softcap, Softcap::Sigmoid);
  EXPECT_EQ(windowTokens(r21, 1770, 0), 1792);
  EXPECT_EQ(windowTokens(r21, 1770, 1), 896);
  const std::vector<LayerWindow> &w = r21.model.attention.layerWindows;
  std::string pattern;
  for (LayerWindow l : w)
    pattern += l == LayerWindow::Long ? 'L' : 'S';
  EXPECT_EQ(pattern, "LSSSLSSLSSSL");
}

} // namespace

namespace {

/// Parses `text` (named `name`) or fails the test.
ModelSpec parseOrFail(const std::string &text, const std::string &name) {
  ModelSpec spec;
  SpecError error;
  EXPECT_TRUE(parseSpecString(text, name, {}, spec, error))
      << error.str() << "\n"
      << text;
  return spec;
}

} // namespace

// A bundle's spec.yaml is the resolved spec: it must parse on its own to the
// same spec, with several overrides of one section and a repeated key.
TEST(Models, ResolvedSpecReparsesToTheSame) {
  for (const auto &file : std::filesystem::directory_iterator(kModels)) {
    if (file.path().extension() != ".yaml")
      continue;
    ModelSpec spec;
    SpecError error;
    ASSERT_TRUE(parseSpecFile(file.path().string(),
                              {"training.seed=7", "training.seq_len=64",
                               "training.seq_len=2048", "validation.every=5",
                               "name=\"x: 'y' \\\" z\""},
                              spec, error))
        << error.str();
    EXPECT_EQ(spec.resolvedYaml.find("extends"), std::string::npos);
    ModelSpec again = parseOrFail(spec.resolvedYaml, "resolved.yaml");
    EXPECT_EQ(again.resolvedYaml, spec.resolvedYaml) << file.path();
    EXPECT_EQ(again.name, "x: 'y' \" z");
    EXPECT_EQ(again.training.seed, 7);
    EXPECT_EQ(again.training.seqLen, 2048); // not below any window_end
    EXPECT_EQ(again.validation.every, 5);
    EXPECT_EQ(again.model.nLayer, spec.model.nLayer);
    EXPECT_EQ(again.description, spec.description);
    ASSERT_EQ(again.groups.size(), spec.groups.size());
    for (size_t i = 0; i < spec.groups.size(); ++i) {
      EXPECT_EQ(again.groups[i].name, spec.groups[i].name);
      EXPECT_EQ(again.groups[i].params, spec.groups[i].params);
      EXPECT_EQ(again.groups[i].lr, spec.groups[i].lr);
    }
  }
}

// Plain scalars that are not plain inside a flow list get quoted.
TEST(Models, ResolvedSpecQuotesFlowIndicators) {
  ModelSpec spec = parseOrFail(
      std::string(kBaseSpec) + "description: a, b [c] {d}\n", "base.yaml");
  ModelSpec again = parseOrFail(spec.resolvedYaml, "resolved.yaml");
  EXPECT_EQ(again.description, "a, b [c] {d}");
  EXPECT_EQ(again.groups[1].params, spec.groups[1].params);
}

namespace gptc {
namespace {

// The optimizer table is in OptimizerKind's order, its names are the
// schema's spellings of `kind`, each row names its optim op, and every
// scoped key is among its optimizer's keys.
TEST(OptimizerTable, RowsMatchTheEnumAndTheSchema) {
  const std::vector<OptimizerInfo> &table = optimizerTable();
  const std::vector<std::string> &spellings = enumSpellings<OptimizerKind>();
  ASSERT_EQ(table.size(), spellings.size());
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(size_t(table[i].kind), i);
    EXPECT_EQ(&optimizerInfo(table[i].kind), &table[i]);
    EXPECT_EQ(spellings[i], table[i].name);
    EXPECT_NE(std::string(table[i].op).find("optim."), std::string::npos)
        << table[i].name;
  }
  EXPECT_EQ(optimizerKeys(OptimizerKind::Muon).front(),
            "optimizer.groups.*.momentum");
  for (const SchemaEntry &e : specSchema())
    if (e.scope)
      EXPECT_NE(std::find(optimizerKeys(*e.scope).begin(),
                          optimizerKeys(*e.scope).end(), e.path),
                optimizerKeys(*e.scope).end());
}

} // namespace
} // namespace gptc
