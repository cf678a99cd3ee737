//===- SpecChecks.cpp - Rules that relate several spec keys ---------------===//
//
// One function per area. Messages state the rule and the values that break
// it, e.g. `n_head (6) * head_dim (64) = 384 must equal d_model (768)`.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecChecks.h"
#include "frontend/CompileCost.h"
#include "frontend/Parameters.h"

#include <cstdio>

namespace gptc {

namespace {

/// The block size of block-sparse attention (REFERENCE: 128x128 tiles).
constexpr int64_t kAttentionBlock = 128;

std::string num(int64_t v) { return std::to_string(v); }

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

} // namespace

bool SpecChecks::fail(std::initializer_list<std::string> keys,
                      const std::string &message) {
  // The key written closest to the user; the first listed on ties, and the
  // first listed (at its nearest written ancestor) when none was written.
  const std::string *best = nullptr;
  int bestLayer = 0;
  for (const std::string &key : keys) {
    auto it = records.find(key);
    if (it != records.end() && (!best || it->second.layer < bestLayer)) {
      best = &key;
      bestLayer = it->second.layer;
    }
  }
  const std::string &key = best ? *best : *keys.begin();
  error.key = key;
  error.loc = best ? records.at(key).keyLoc : spec.locOf(key);
  error.message = message;
  return false;
}

bool SpecChecks::run() {
  return checkShape() && checkAttention() && checkWindow() && checkTraining() &&
         checkSchedule() && checkGroups() && checkCompileCost();
}

bool SpecChecks::checkShape() {
  const ModelShape &m = spec.model;
  if (m.nHead * m.headDim != m.dModel)
    return fail({"model.n_head", "model.head_dim", "model.d_model"},
                "n_head (" + num(m.nHead) + ") * head_dim (" + num(m.headDim) +
                    ") = " + num(m.nHead * m.headDim) +
                    " must equal d_model (" + num(m.dModel) + ")");
  if (m.headDim % 2 != 0)
    return fail({"model.head_dim"},
                "head_dim (" + num(m.headDim) +
                    ") must be even: rotary turns pairs of channels");
  if (m.attention.rotary == Rotary::HalfTruncated && m.headDim % 4 != 0)
    return fail({"model.attention.rotary", "model.head_dim"},
                "half_truncated rotary needs head_dim (" + num(m.headDim) +
                    ") to be a multiple of 4");
  if (m.tiedEmbedding && m.lmHeadZeroInit)
    return fail({"model.lm_head_zero_init", "model.tied_embedding"},
                "lm_head_zero_init needs an untied head (tied_embedding: "
                "false); a zero head tied to wte would zero the embedding");
  if (m.valueResidual && m.valueEmbeddings != ValueEmbeddings::None)
    return fail({"model.value_residual", "model.value_embeddings"},
                "value_residual and value_embeddings (" +
                    std::string(toString(m.valueEmbeddings)) +
                    ") both mix into v through attn.value_lambdas; choose one");
  if (m.unetSkips && m.nLayer % 2 != 0)
    return fail({"model.unet_skips", "model.n_layer"},
                "unet_skips needs an even n_layer (got " + num(m.nLayer) +
                    "): n_layer/2 encoder and n_layer/2 decoder blocks");
  if (m.valueEmbeddings == ValueEmbeddings::Mirrored && m.nLayer % 2 != 0)
    return fail({"model.value_embeddings", "model.n_layer"},
                "mirrored value_embeddings need an even n_layer (got " +
                    num(m.nLayer) + ")");
  if (m.valueEmbeddings == ValueEmbeddings::Ends && m.nLayer < 6)
    return fail({"model.value_embeddings", "model.n_layer"},
                "value_embeddings 'ends' needs n_layer >= 6 (3 tables on the "
                "first and on the last 3 layers), got " +
                    num(m.nLayer));
  return true;
}

bool SpecChecks::checkAttention() {
  const AttentionSpec &a = spec.model.attention;
  if (a.documentMask && !a.causal)
    return fail({"model.attention.document_mask", "model.attention.causal"},
                "document_mask needs causal: true (documents are masked "
                "within the causal mask)");
  if (a.documentMask && a.bosToken >= spec.model.vocabSize)
    return fail({"model.attention.bos_token", "model.vocab_size"},
                "bos_token (" + num(a.bosToken) +
                    ") must be a token id below vocab_size (" +
                    num(spec.model.vocabSize) + ")");
  return true;
}

bool SpecChecks::checkWindow() {
  const AttentionSpec &a = spec.model.attention;
  const char *unitKey = "model.attention.window_unit";
  if (a.windowUnit == WindowUnit::None) {
    if (!a.layerWindows.empty())
      return fail({"model.attention.window_pattern", unitKey},
                  "window_pattern needs a sliding window, but window_unit is "
                  "none");
    return true;
  }
  const std::string unit = toString(a.windowUnit);
  if (!a.causal)
    return fail({unitKey, "model.attention.causal"},
                "a sliding window (window_unit: " + unit +
                    ") needs causal: true");
  if (a.windowUnit == WindowUnit::Blocks) {
    if (spec.training.seqLen % kAttentionBlock != 0)
      return fail({"training.seq_len", unitKey},
                  "seq_len (" + num(spec.training.seqLen) +
                      ") must be a multiple of the " + num(kAttentionBlock) +
                      "-token attention block when window_unit is blocks");
    if (a.windowGranularity % kAttentionBlock != 0)
      return fail({"model.attention.window_granularity", unitKey},
                  "window_granularity (" + num(a.windowGranularity) +
                      ") must be a multiple of the " + num(kAttentionBlock) +
                      "-token attention block when window_unit is blocks");
  }
  if (a.windowStart > a.windowEnd)
    return fail({"model.attention.window_start", "model.attention.window_end"},
                "window_start (" + num(a.windowStart) +
                    ") exceeds window_end (" + num(a.windowEnd) +
                    "): the window grows over training");
  const int64_t seqLen = spec.training.seqLen;
  if (a.windowEnd > seqLen)
    return fail({"model.attention.window_end", "training.seq_len"},
                "window_end (" + num(a.windowEnd) + ") exceeds seq_len (" +
                    num(seqLen) +
                    "): no window can be longer than the "
                    "sequence");
  const int64_t layers = static_cast<int64_t>(a.layerWindows.size());
  if (layers != 0 && layers != spec.model.nLayer)
    return fail({"model.attention.window_pattern", "model.n_layer"},
                "window_pattern has " + num(layers) +
                    " entries; it needs one per layer (n_layer = " +
                    num(spec.model.nLayer) + ") or none");
  return true;
}

bool SpecChecks::checkTraining() {
  const TrainingSpec &t = spec.training;
  const int64_t perStep = t.deviceBatch * t.ranks;
  if (t.batch % perStep != 0)
    return fail({"training.batch", "training.device_batch", "training.ranks"},
                "batch (" + num(t.batch) +
                    ") must be a multiple of device_batch (" +
                    num(t.deviceBatch) + ") * ranks (" + num(t.ranks) +
                    ") = " + num(perStep));
  return true;
}

bool SpecChecks::checkSchedule() {
  const ScheduleSpec &s = spec.schedule;
  const int64_t steps = spec.training.steps;
  if (s.decaySteps > 0 && s.decayFraction > 0)
    return fail({"schedule.decay_fraction", "schedule.decay_steps"},
                "set decay_steps (" + num(s.decaySteps) +
                    ") or decay_fraction (" + num(s.decayFraction) +
                    "), not both");
  // A shorter run (--set training.steps=N) keeps step counts as they are:
  // say how to shorten them too, or to state them as shares.
  if (s.warmupSteps > steps)
    return fail({"schedule.warmup_steps", "training.steps"},
                "warmup_steps (" + num(s.warmupSteps) +
                    ") exceeds training.steps (" + num(steps) +
                    "); shorten it too (--set schedule.warmup_steps=W) or "
                    "give it as a share of training.steps "
                    "(schedule.warmup_steps=0, schedule.warmup_fraction=F)");
  if (s.decaySteps > steps)
    return fail({"schedule.decay_steps", "training.steps"},
                "decay_steps (" + num(s.decaySteps) +
                    ") exceeds training.steps (" + num(steps) +
                    "); shorten it too (--set schedule.decay_steps=D) or "
                    "give it as a share of training.steps "
                    "(schedule.decay_steps=0, schedule.decay_fraction=F)");
  const double decay = s.decaySteps > 0
                           ? static_cast<double>(s.decaySteps)
                           : s.decayFraction * static_cast<double>(steps);
  if (static_cast<double>(s.warmupSteps) + decay > static_cast<double>(steps))
    return fail({"schedule.warmup_steps", "schedule.decay_steps",
                 "schedule.decay_fraction", "training.steps"},
                "the warm-up (" + num(s.warmupSteps) +
                    " steps) and the decay (" + num(decay) +
                    " steps) overlap: together they exceed training.steps (" +
                    num(steps) + ")");
  return true;
}

bool SpecChecks::checkGroups() {
  for (const OptimizerGroup &g : spec.groups) {
    const std::string prefix = "optimizer.groups." + g.name + ".";
    if (g.kind == OptimizerKind::Muon && g.qkvSplit &&
        spec.model.attention.qkv == QKVLayout::Separate)
      return fail({prefix + "qkv_split", "model.attention.qkv"},
                  "qkv_split splits a fused (3 d, d) QKV matrix, but "
                  "model.attention.qkv is separate");
  }
  return true;
}

bool SpecChecks::checkCompileCost() {
  const int64_t expected = expectedCompileMemoryMiB(spec);
  const int64_t limit = spec.compile.memoryLimitMiB;
  if (expected > limit)
    return fail({"model.n_layer", "compile.memory_limit_mb"},
                "compiling " + num(spec.model.nLayer) +
                    " layers is expected to need about " + num(expected) +
                    " MiB, over compile.memory_limit_mb (" + num(limit) +
                    "); raise the limit to compile it");
  return true;
}

} // namespace gptc
