//===- SpecSchemaTable.cpp - One entry per spec key -----------------------===//
//
// The schema table itself: every key a spec may hold, its type, default,
// range, one-line documentation (the README table) and setter. Keep the
// docs to one line each and mention the records (R3, R15, ...) a setting
// comes from.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecSchema.h"

namespace gptc {

namespace {

/// Fluent construction of one SchemaEntry.
class Key {
public:
  Key(std::string path, ValueKind kind) {
    entry.path = std::move(path);
    entry.kind = kind;
  }
  template <typename E> Key &oneOf() {
    entry.spellings = &enumSpellings<E>();
    return *this;
  }
  Key &required() {
    entry.defaultValue.reset();
    return *this;
  }
  Key &byDefault(std::string yaml) {
    entry.defaultValue = std::move(yaml);
    return *this;
  }
  Key &atLeast(double v) {
    entry.range.min = v;
    return *this;
  }
  Key &above(double v) {
    entry.range.min = v;
    entry.range.minExclusive = true;
    return *this;
  }
  Key &atMost(double v) {
    entry.range.max = v;
    return *this;
  }
  Key &below(double v) {
    entry.range.max = v;
    entry.range.maxExclusive = true;
    return *this;
  }
  Key &length(size_t n) {
    entry.listLength = n;
    return *this;
  }
  Key &nonEmpty() {
    entry.minListLength = 1;
    return *this;
  }
  /// The key applies to `kind`'s groups only.
  Key &only(OptimizerKind kind) {
    entry.scope = kind;
    return *this;
  }
  Key &doc(std::string text) {
    entry.doc = std::move(text);
    return *this;
  }
  Key &set(SpecSetter setter) {
    entry.set = std::move(setter);
    return *this;
  }
  operator SchemaEntry() const { return entry; }

private:
  SchemaEntry entry;
};

using VK = ValueKind;
using MS = ModelSpec;
using OG = OptimizerGroup;
using SV = SpecValue;

/// Sanity bounds: keep every product the compiler and runtime form (sizes,
/// windows times steps) far from int64 overflow.
constexpr double kMaxCount = 1e9;
constexpr double kMaxWidth = 1e6;

std::vector<SchemaEntry> buildTopAndModel() {
  return {
      Key("name", VK::String)
          .required()
          .doc("Spec name; printed in logs and the artifact manifest.")
          .set([](MS &s, OG *, const SV &v) { s.name = v.stringValue; }),
      Key("description", VK::String)
          .byDefault("\"\"")
          .doc("Free text: the record and what it adds.")
          .set([](MS &s, OG *, const SV &v) { s.description = v.stringValue; }),
      Key("extends", VK::String)
          .byDefault("\"\"")
          .doc("Base spec, relative to this file. This file is deep-merged "
               "over it (maps merge; scalars and lists replace). Chains are "
               "allowed, cycles are errors."),
      Key("model.vocab_size", VK::Int)
          .required()
          .atLeast(2)
          .atMost(kMaxCount)
          .doc("Vocabulary size (GPT-2: 50257).")
          .set(
              [](MS &s, OG *, const SV &v) { s.model.vocabSize = v.intValue; }),
      Key("model.vocab_pad_multiple", VK::Int)
          .byDefault("1")
          .atLeast(1)
          .atMost(65536)
          .doc("Embedding and head rows are padded up to a multiple of this "
               "(R5+: 128, 50257 -> 50304); padded rows are never targets.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.vocabPadMultiple = v.intValue;
          }),
      Key("model.n_layer", VK::Int)
          .required()
          .atLeast(1)
          .atMost(10000)
          .doc("Number of transformer blocks.")
          .set([](MS &s, OG *, const SV &v) { s.model.nLayer = v.intValue; }),
      Key("model.d_model", VK::Int)
          .required()
          .atLeast(1)
          .atMost(kMaxWidth)
          .doc("Width of the residual stream.")
          .set([](MS &s, OG *, const SV &v) { s.model.dModel = v.intValue; }),
      Key("model.n_head", VK::Int)
          .required()
          .atLeast(1)
          .atMost(kMaxWidth)
          .doc("Attention heads; n_head * head_dim must equal d_model.")
          .set([](MS &s, OG *, const SV &v) { s.model.nHead = v.intValue; }),
      Key("model.head_dim", VK::Int)
          .required()
          .atLeast(2)
          .atMost(kMaxWidth)
          .doc("Width of one head; even (a multiple of 4 for half_truncated "
               "rotary).")
          .set([](MS &s, OG *, const SV &v) { s.model.headDim = v.intValue; }),
      Key("model.mlp_ratio", VK::Int)
          .byDefault("4")
          .atLeast(1)
          .atMost(64)
          .doc("MLP hidden width = mlp_ratio * d_model.")
          .set([](MS &s, OG *, const SV &v) { s.model.mlpRatio = v.intValue; }),
      Key("model.activation", VK::Enum)
          .oneOf<Activation>()
          .byDefault("relu2")
          .doc("MLP nonlinearity: gelu (R3-R4) or relu2 = relu(x)^2 (R5+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.activation = v.as<Activation>();
          }),
      Key("model.tied_embedding", VK::Bool)
          .byDefault("false")
          .doc("The head reuses wte (R3-R7); false = a separate lm_head "
               "(R8+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.tiedEmbedding = v.boolValue;
          }),
      Key("model.embed_norm", VK::Bool)
          .byDefault("false")
          .doc("RMSNorm right after the embedding: x = norm(wte(idx)) (R8+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.embedNorm = v.boolValue;
          }),
      Key("model.norm_eps", VK::Float)
          .byDefault("1.0e-6")
          .above(0)
          .below(1)
          .doc("RMSNorm epsilon, added in f32 (R3-R4: 1e-6); unused when "
               "norm_eps_from_dtype.")
          .set(
              [](MS &s, OG *, const SV &v) { s.model.normEps = v.floatValue; }),
      Key("model.norm_eps_from_dtype", VK::Bool)
          .byDefault("false")
          .doc("RMSNorm epsilon = machine epsilon of training.dtype (R5+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.normEpsFromDtype = v.boolValue;
          }),
      Key("model.attn_branch_scale", VK::Bool)
          .byDefault("false")
          .doc("Scale the attention branch by 1/sqrt(2 n_layer) (R3-R4).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attnBranchScale = v.boolValue;
          }),
      Key("model.init_std", VK::Float)
          .byDefault("0.02")
          .above(0)
          .atMost(10)
          .doc("Std of the normal init of every matrix not zero-initialised.")
          .set(
              [](MS &s, OG *, const SV &v) { s.model.initStd = v.floatValue; }),
      Key("model.embedding_init_std", VK::Float)
          .byDefault("0")
          .atLeast(0)
          .atMost(10)
          .doc("Std of the normal init of the embedding tables (wte, "
               "value_embeds.*); 0 = init_std. PyTorch's nn.Embedding "
               "starts at N(0, 1): 1 (R15, R21).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.embeddingInitStd = v.floatValue;
          }),
      Key("model.lm_head_zero_init", VK::Bool)
          .byDefault("false")
          .doc("Zero-initialise lm_head (R8+; untied heads only).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.lmHeadZeroInit = v.boolValue;
          }),
      Key("model.out_proj_zero_init", VK::Bool)
          .byDefault("false")
          .doc("Zero-initialise attn.proj and mlp.proj (R5+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.outProjZeroInit = v.boolValue;
          }),
      Key("model.shortcut_x0", VK::Bool)
          .byDefault("false")
          .doc("Each block starts with x = l0 x + l1 x0, x0 = the normed "
               "embedding; blocks.{i}.lambdas init [1, 0] (R9+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.shortcutX0 = v.boolValue;
          }),
      Key("model.value_residual", VK::Bool)
          .byDefault("false")
          .doc("Mix layer 0's v into later layers' v with "
               "blocks.{i}.attn.value_lambdas (R9-R13).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.valueResidual = v.boolValue;
          }),
      Key("model.unet_skips", VK::Bool)
          .byDefault("false")
          .doc("U-Net: the first n_layer/2 block outputs are stacked; decoder "
               "block i first adds skip_weights[i] * pop() (init 1) (R11+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.unetSkips = v.boolValue;
          }),
      Key("model.value_embeddings", VK::Enum)
          .oneOf<ValueEmbeddings>()
          .byDefault("none")
          .doc("Tables value_embeds.{j} mixed into v = a v + b ve, (a, b) = "
               "attn.value_lambdas init [0.5, 0.5]. mirrored: n_layer/2 "
               "tables, encoder layer i reads i, decoder layer i reads "
               "n_layer/2-1-i (R15); ends: 3 tables, layers [0, 1, 2, none..., "
               "0, 1, 2] (R17+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.valueEmbeddings = v.as<ValueEmbeddings>();
          }),
      Key("model.logit_softcap", VK::Enum)
          .oneOf<Softcap>()
          .byDefault("none")
          .doc("Logit cap: tanh = c tanh(z/c) (R9-R18); sigmoid = c "
               "sigmoid(z/s) (R19+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.softcap = v.as<Softcap>();
          }),
      Key("model.softcap_value", VK::Float)
          .byDefault("30")
          .above(0)
          .atMost(1e6)
          .doc("The cap c (R18: 15).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.softcapValue = v.floatValue;
          }),
      Key("model.softcap_scale", VK::Float)
          .byDefault("7.5")
          .above(0)
          .atMost(1e6)
          .doc("The divisor s of the sigmoid cap.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.softcapScale = v.floatValue;
          }),
  };
}

std::vector<SchemaEntry> buildAttention() {
  return {
      Key("model.attention.qkv", VK::Enum)
          .oneOf<QKVLayout>()
          .byDefault("fused")
          .doc("fused: one (3 d, d) matrix attn.qkv; separate: attn.q, "
               "attn.k, attn.v of (d, d).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.qkv = v.as<QKVLayout>();
          }),
      Key("model.attention.qk_norm", VK::Enum)
          .oneOf<QKNorm>()
          .byDefault("none")
          .doc("RMSNorm of q and k over head_dim, after rotary (R5) or before "
               "it (R6+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.qkNorm = v.as<QKNorm>();
          }),
      Key("model.attention.rotary", VK::Enum)
          .oneOf<Rotary>()
          .byDefault("standard")
          .doc("standard: inv_freq = base^(-2i/head_dim) (R3-R16); "
               "half_truncated: (1/base)^linspace(0, 1, head_dim/4) then "
               "head_dim/4 zeros (R17+, base 1024).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.rotary = v.as<Rotary>();
          }),
      Key("model.attention.rotary_base", VK::Float)
          .byDefault("10000")
          .above(0)
          .atMost(1e12)
          .doc("The rotary base.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.rotaryBase = v.floatValue;
          }),
      Key("model.attention.scale", VK::Float)
          .byDefault("0")
          .atLeast(0)
          .atMost(1e6)
          .doc("Attention logit scale; 0 = 1/sqrt(head_dim) (R20+: 0.12).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.scale = v.floatValue;
          }),
      Key("model.attention.causal", VK::Bool)
          .byDefault("true")
          .doc("Causal mask: key position <= query position.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.causal = v.boolValue;
          }),
      Key("model.attention.document_mask", VK::Bool)
          .byDefault("false")
          .doc("Attend only within a document; each bos_token starts one "
               "(R12+).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.documentMask = v.boolValue;
          }),
      Key("model.attention.bos_token", VK::Int)
          .byDefault("50256")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("The token that starts every document; < vocab_size.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.bosToken = v.intValue;
          }),
      Key("model.attention.window_unit", VK::Enum)
          .oneOf<WindowUnit>()
          .byDefault("none")
          .doc("Sliding window: none; tokens = element mask q - kv < window; "
               "blocks = counted in 128-token tiles, q/128 - kv/128 < "
               "window/128 (R16+); record_blocks = the element mask inside "
               "the 128-token key blocks with q/128 - kv/128 < "
               "ceil(window/128), as R12-R15's FlexAttention BlockMask "
               "computes it.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.windowUnit = v.as<WindowUnit>();
          }),
      Key("model.attention.window_start", VK::Int)
          .byDefault("0")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("Window in tokens at step 0.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.windowStart = v.intValue;
          }),
      Key("model.attention.window_end", VK::Int)
          .byDefault("0")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("Window in tokens at the last step; linear in between.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.windowEnd = v.intValue;
          }),
      Key("model.attention.window_granularity", VK::Int)
          .byDefault("1")
          .atLeast(1)
          .atMost(kMaxCount)
          .doc("The window is rounded to a multiple of this, at least one "
               "(a multiple of 128 for blocks).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.windowGranularity = v.intValue;
          }),
      Key("model.attention.window_rounding", VK::Enum)
          .oneOf<Rounding>()
          .byDefault("floor")
          .doc("floor (R13: 64 floor((64 + 1728 step/N) / 64)) or ceil "
               "(R19+: next_multiple_of(1728 step/N, 128)).")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.windowRounding = v.as<Rounding>();
          }),
      Key("model.attention.window_pattern", VK::EnumList)
          .oneOf<LayerWindow>()
          .byDefault("[]")
          .doc("One long or short per layer (short = long/2, R20+); [] = all "
               "long.")
          .set([](MS &s, OG *, const SV &v) {
            s.model.attention.layerWindows.clear();
            for (int e : v.enums)
              s.model.attention.layerWindows.push_back(
                  static_cast<LayerWindow>(e));
          }),
  };
}

std::vector<SchemaEntry> buildTrainingAndSchedule() {
  return {
      Key("training.seq_len", VK::Int)
          .required()
          .atLeast(1)
          .atMost(kMaxCount)
          .doc("Tokens per sequence.")
          .set(
              [](MS &s, OG *, const SV &v) { s.training.seqLen = v.intValue; }),
      Key("training.device_batch", VK::Int)
          .required()
          .atLeast(1)
          .atMost(kMaxCount)
          .doc("Sequences per micro-step per rank.")
          .set([](MS &s, OG *, const SV &v) {
            s.training.deviceBatch = v.intValue;
          }),
      Key("training.batch", VK::Int)
          .required()
          .atLeast(1)
          .atMost(kMaxCount)
          .doc("Sequences per optimizer step over all ranks; grad "
               "accumulation = batch / (device_batch * ranks) micro-steps.")
          .set([](MS &s, OG *, const SV &v) { s.training.batch = v.intValue; }),
      Key("training.ranks", VK::Int)
          .byDefault("1")
          .atLeast(1)
          .atMost(kMaxWidth)
          .doc("Data-parallel ranks.")
          .set([](MS &s, OG *, const SV &v) { s.training.ranks = v.intValue; }),
      Key("training.steps", VK::Int)
          .required()
          .atLeast(1)
          .atMost(kMaxCount)
          .doc("Optimizer steps N.")
          .set([](MS &s, OG *, const SV &v) { s.training.steps = v.intValue; }),
      Key("training.seed", VK::Int)
          .byDefault("0")
          .atLeast(0)
          .atMost(1e18)
          .doc("Seed of the parameter initialisation.")
          .set([](MS &s, OG *, const SV &v) { s.training.seed = v.intValue; }),
      Key("training.dtype", VK::Enum)
          .oneOf<DType>()
          .byDefault("f32")
          .doc("Activation and matmul dtype (bf16 in the records).")
          .set([](MS &s, OG *, const SV &v) {
            s.training.dtype = v.as<DType>();
          }),
      Key("training.timing_skip_steps", VK::Int)
          .byDefault("10")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("First steps left out of the step-time average (R4+: 10).")
          .set([](MS &s, OG *, const SV &v) {
            s.training.timingSkipSteps = v.intValue;
          }),
      Key("training.divergence_factor", VK::Float)
          .byDefault("10")
          .atLeast(0)
          .atMost(1e30)
          .doc("gptc train stops (non-zero exit) when the loss exceeds this "
               "many times the first step's loss; 0 = off. A non-finite "
               "loss or parameter always stops it.")
          .set([](MS &s, OG *, const SV &v) {
            s.training.divergenceFactor = v.floatValue;
          }),
      Key("schedule.warmup_steps", VK::Int)
          .byDefault("0")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("Linear LR warm-up, mult = (step + 1) / warmup_steps (R3: "
               "250).")
          .set([](MS &s, OG *, const SV &v) {
            s.schedule.warmupSteps = v.intValue;
          }),
      Key("schedule.warmup_fraction", VK::Float)
          .byDefault("0")
          .atLeast(0)
          .atMost(1)
          .doc("When warmup_steps is 0: warmup_steps = round(warmup_fraction "
               "* N), at least 1; the warm-up then follows training.steps.")
          .set([](MS &s, OG *, const SV &v) {
            s.schedule.warmupFraction = v.floatValue;
          }),
      Key("schedule.decay_steps", VK::Int)
          .byDefault("0")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("Linear decay over the last D = decay_steps steps: w = min((N "
               "- step) / D, 1), mult = w + (1 - w) lr_floor.")
          .set([](MS &s, OG *, const SV &v) {
            s.schedule.decaySteps = v.intValue;
          }),
      Key("schedule.decay_fraction", VK::Float)
          .byDefault("0")
          .atLeast(0)
          .atMost(1)
          .doc("When decay_steps is 0: D = decay_fraction * N (R19+: 0.4).")
          .set([](MS &s, OG *, const SV &v) {
            s.schedule.decayFraction = v.floatValue;
          }),
      Key("schedule.lr_floor", VK::Float)
          .byDefault("0")
          .atLeast(0)
          .atMost(1)
          .doc("LR multiplier reached at the end of the decay (R19+: 0.1).")
          .set([](MS &s, OG *, const SV &v) {
            s.schedule.lrFloor = v.floatValue;
          }),
  };
}

std::vector<SchemaEntry> buildGroups() {
  return {
      Key("optimizer.groups.*.kind", VK::Enum)
          .oneOf<OptimizerKind>()
          .required()
          .doc("The group's optimizer.")
          .set([](MS &, OG *g, const SV &v) {
            g->kind = v.as<OptimizerKind>();
          }),
      Key("optimizer.groups.*.params", VK::StringList)
          .required()
          .nonEmpty()
          .doc("Glob patterns over parameter names (* matches any run, dots "
               "included); every parameter matches exactly one group.")
          .set([](MS &, OG *g, const SV &v) { g->params = v.strings; }),
      Key("optimizer.groups.*.lr", VK::Float)
          .required()
          .atLeast(0)
          .atMost(1e6)
          .doc("Learning rate, times the schedule's multiplier.")
          .set([](MS &, OG *g, const SV &v) { g->lr = v.floatValue; }),
      Key("optimizer.groups.*.weight_decay", VK::Float)
          .byDefault("0")
          .atLeast(0)
          .atMost(1e6)
          .doc("Weight decay.")
          .set([](MS &, OG *g, const SV &v) { g->weightDecay = v.floatValue; }),
      Key("optimizer.groups.*.momentum", VK::Float)
          .only(OptimizerKind::Muon)
          .byDefault("0.95")
          .atLeast(0)
          .below(1)
          .doc("Momentum m (after the warm-up).")
          .set([](MS &, OG *g, const SV &v) { g->momentum = v.floatValue; }),
      Key("optimizer.groups.*.nesterov", VK::Bool)
          .only(OptimizerKind::Muon)
          .byDefault("true")
          .doc("Nesterov momentum.")
          .set([](MS &, OG *g, const SV &v) { g->nesterov = v.boolValue; }),
      Key("optimizer.groups.*.momentum_form", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<MomentumForm>()
          .byDefault("sum")
          .doc("sum: buf = m buf + g, g += m buf (R3-R14); lerp: buf = "
               "lerp(buf, g, 1-m), g = lerp(g, buf, m) (R15+).")
          .set([](MS &, OG *g, const SV &v) {
            g->momentumForm = v.as<MomentumForm>();
          }),
      Key("optimizer.groups.*.momentum_warmup_steps", VK::Int)
          .only(OptimizerKind::Muon)
          .byDefault("0")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("m = (1-f) momentum_warmup_start + f momentum, f = min(step / "
               "this, 1) (R9+: 500, R13+: 300); 0 = constant m.")
          .set([](MS &, OG *g, const SV &v) {
            g->momentumWarmupSteps = v.intValue;
          }),
      Key("optimizer.groups.*.momentum_warmup_fraction", VK::Float)
          .only(OptimizerKind::Muon)
          .byDefault("0")
          .atLeast(0)
          .atMost(1)
          .doc("When momentum_warmup_steps is 0: momentum_warmup_steps = "
               "round(this * training.steps), at least 1 (R15's 300 of 1480: "
               "0.2027).")
          .set([](MS &, OG *g, const SV &v) {
            g->momentumWarmupFraction = v.floatValue;
          }),
      Key("optimizer.groups.*.momentum_warmup_start", VK::Float)
          .only(OptimizerKind::Muon)
          .byDefault("0.85")
          .atLeast(0)
          .below(1)
          .doc("Momentum at step 0 of the warm-up.")
          .set([](MS &, OG *g, const SV &v) {
            g->momentumWarmupStart = v.floatValue;
          }),
      Key("optimizer.groups.*.ns_steps", VK::Int)
          .only(OptimizerKind::Muon)
          .byDefault("5")
          .atLeast(1)
          .atMost(100)
          .doc("Newton-Schulz iterations.")
          .set([](MS &, OG *g, const SV &v) { g->nsSteps = v.intValue; }),
      Key("optimizer.groups.*.ns_coefficients", VK::FloatList)
          .only(OptimizerKind::Muon)
          .byDefault("[3.4445, -4.7750, 2.0315]")
          .length(3)
          .atLeast(-1e6)
          .atMost(1e6)
          .doc("Quintic coefficients (a, b, c).")
          .set([](MS &, OG *g, const SV &v) { g->nsCoefficients = v.floats; }),
      Key("optimizer.groups.*.ns_eps", VK::Float)
          .only(OptimizerKind::Muon)
          .byDefault("1.0e-7")
          .above(0)
          .atMost(1)
          .doc("X = G / (|G|_F + ns_eps).")
          .set([](MS &, OG *g, const SV &v) { g->nsEps = v.floatValue; }),
      Key("optimizer.groups.*.ns_form", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<NSForm>()
          .byDefault("polynomial_then_apply")
          .doc("A = X X^T, then apply_then_combine: B = A X, X = a X + b B + "
               "c A B (R3-R10); polynomial_then_apply: B = b A + c A A, X = a "
               "X + B X (R11+).")
          .set([](MS &, OG *g, const SV &v) { g->nsForm = v.as<NSForm>(); }),
      Key("optimizer.groups.*.ns_normalize", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<NSNormalize>()
          .byDefault("after_cast")
          .doc("Divide by the norm of the ns_dtype cast (R5+) or of the f32 "
               "matrix before the cast (R3-R4).")
          .set([](MS &, OG *g, const SV &v) {
            g->nsNormalize = v.as<NSNormalize>();
          }),
      Key("optimizer.groups.*.ns_backend", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<NSBackend>()
          .byDefault("newton_schulz")
          .doc("Orthogonaliser: Newton-Schulz, or the exact U V^T by SVD "
               "(R4's reference option).")
          .set([](MS &, OG *g, const SV &v) {
            g->nsBackend = v.as<NSBackend>();
          }),
      Key("optimizer.groups.*.ns_dtype", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<DType>()
          .byDefault("bf16")
          .doc("Dtype of the Newton-Schulz iteration.")
          .set([](MS &, OG *g, const SV &v) { g->nsDtype = v.as<DType>(); }),
      Key("optimizer.groups.*.update_scale", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<UpdateScale>()
          .byDefault("none")
          .doc("Update multiplier: none (R3); sqrt(max(rows, cols)) (R4-R7); "
               "sqrt(max(1, rows/cols)) (R8+).")
          .set([](MS &, OG *g, const SV &v) {
            g->updateScale = v.as<UpdateScale>();
          }),
      Key("optimizer.groups.*.qkv_split", VK::Bool)
          .only(OptimizerKind::Muon)
          .byDefault("false")
          .doc("Orthogonalise and scale a fused (3 d, d) QKV matrix as its "
               "three (d, d) blocks (R4; R20+ batched).")
          .set([](MS &, OG *g, const SV &v) { g->qkvSplit = v.boolValue; }),
      Key("optimizer.groups.*.distribution", VK::Enum)
          .only(OptimizerKind::Muon)
          .oneOf<MuonDistribution>()
          .byDefault("none")
          .doc("none: every rank orthogonalises everything (R3-R5); "
               "all_reduce_flat: matrix i on rank i mod world, one flat bf16 "
               "all_reduce (R6+); all_gather_grouped: by size, async "
               "all_gather overlapped with the next group (R15+).")
          .set([](MS &, OG *g, const SV &v) {
            g->distribution = v.as<MuonDistribution>();
          }),
      Key("optimizer.groups.*.betas", VK::FloatList)
          .only(OptimizerKind::Adam)
          .byDefault("[0.9, 0.95]")
          .length(2)
          .atLeast(0)
          .below(1)
          .doc("(beta1, beta2) (R13+: [0.8, 0.95]).")
          .set([](MS &, OG *g, const SV &v) {
            g->beta1 = v.floats[0];
            g->beta2 = v.floats[1];
          }),
      Key("optimizer.groups.*.eps", VK::Float)
          .only(OptimizerKind::Adam)
          .byDefault("1.0e-8")
          .above(0)
          .atMost(1)
          .doc("Adam epsilon (R20+: 1e-10).")
          .set([](MS &, OG *g, const SV &v) { g->eps = v.floatValue; }),
      Key("optimizer.groups.*.decoupled_weight_decay", VK::Bool)
          .only(OptimizerKind::Adam)
          .byDefault("true")
          .doc("AdamW decay p -= lr wd p; false = wd p added to the gradient "
               "(torch Adam).")
          .set([](MS &, OG *g, const SV &v) {
            g->decoupledWeightDecay = v.boolValue;
          }),
      Key("optimizer.groups.*.bias_correction", VK::Bool)
          .only(OptimizerKind::Adam)
          .byDefault("true")
          .doc("Bias-correct both Adam moments.")
          .set([](MS &, OG *g, const SV &v) {
            g->biasCorrection = v.boolValue;
          }),
      Key("optimizer.groups.*.storage", VK::Enum)
          .only(OptimizerKind::Adam)
          .oneOf<ParamStorage>()
          .byDefault("compute")
          .doc("Storage of the group's parameters and Adam moments between "
               "steps: compute (training's f32, or f64) or bf16 (as R15's "
               "record keeps its embeddings and scalars): read extended, "
               "updated in the compute type, rounded once when stored.")
          .set([](MS &, OG *g, const SV &v) {
            g->storage = v.as<ParamStorage>();
          }),
      Key("optimizer.groups.*.grad_reduce", VK::Enum)
          .oneOf<GradReduce>()
          .byDefault("compute")
          .doc("The type the group's gradients are averaged over the ranks "
               "in: compute, or bf16 (as the records all-reduce their bf16 "
               "parameters' gradients): each rank's gradient and the mean "
               "rounded to bf16, half the bytes, at the cost of N ranks "
               "equalling one. One rank rounds nothing.")
          .set([](MS &, OG *g, const SV &v) {
            g->gradReduce = v.as<GradReduce>();
          }),
  };
}

std::vector<SchemaEntry> buildValidationAndData() {
  return {
      Key("validation.every", VK::Int)
          .byDefault("125")
          .atLeast(0)
          .atMost(kMaxCount)
          .doc("Validate every this many steps and at the end; 0 = only at "
               "the end.")
          .set([](MS &s, OG *, const SV &v) {
            s.validation.every = v.intValue;
          }),
      Key("validation.tokens", VK::Int)
          .byDefault("10485760")
          .atLeast(1)
          .atMost(1e15)
          .doc("Tokens of validation data (from the start of the val "
               "shards).")
          .set([](MS &s, OG *, const SV &v) {
            s.validation.tokens = v.intValue;
          }),
      Key("data.train", VK::String)
          .byDefault("\"data/*_train_*.bin\"")
          .doc("Glob of the training shards (FineWeb .bin format).")
          .set([](MS &s, OG *, const SV &v) { s.data.train = v.stringValue; }),
      Key("data.val", VK::String)
          .byDefault("\"data/*_val_*.bin\"")
          .doc("Glob of the validation shards.")
          .set([](MS &s, OG *, const SV &v) { s.data.val = v.stringValue; }),
      Key("compile.memory_limit_mb", VK::Int)
          .byDefault("1024")
          .atLeast(1)
          .atMost(kMaxCount)
          .doc("check and compile refuse a spec whose compile is expected "
               "to need more peak memory than this many MiB (the estimate "
               "`gptc check` prints, linear in n_layer); raise it for very "
               "deep models.")
          .set([](MS &s, OG *, const SV &v) {
            s.compile.memoryLimitMiB = v.intValue;
          }),
  };
}

} // namespace

const std::vector<SchemaEntry> &specSchema() {
  static const std::vector<SchemaEntry> schema = [] {
    std::vector<SchemaEntry> all;
    for (auto part :
         {buildTopAndModel(), buildAttention(), buildTrainingAndSchedule(),
          buildGroups(), buildValidationAndData()})
      all.insert(all.end(), part.begin(), part.end());
    return all;
  }();
  return schema;
}

} // namespace gptc
