//===- ParamNames.h - Parameter names of other trainers ---------*- C++ -*-===//
//
// One table of what other trainers call gptc's parameters (the manifest's
// names), read both ways: `gptc train --init` takes modded-nanogpt's
// state-dict names (runtime/Checkpoint.h), `gptc export` writes a
// checkpoint's weights under modded-nanogpt's or Hugging Face GPT-2's
// (commands/ExportCommand.h). I is a block's index:
//
//   gptc                modded-nanogpt                     hf (GPT-2)
//   wte                 transformer.wte.weight transformer.wte.weight
//   blocks.I.attn.q     transformer.h.I.attn.c_q.weight    } transformer.h.I.
//   blocks.I.attn.k     transformer.h.I.attn.c_k.weight    } attn.c_attn.weight
//   blocks.I.attn.v     transformer.h.I.attn.c_v.weight    } (q, k, v rows)
//   blocks.I.attn.qkv   -                                  the same
//   blocks.I.attn.proj  transformer.h.I.attn.c_proj.weight the same
//   blocks.I.mlp.fc     transformer.h.I.mlp.c_fc.weight    the same
//   blocks.I.mlp.proj   transformer.h.I.mlp.c_proj.weight  the same
//   lm_head             lm_head.weight                     lm_head.weight
//
// modded-nanogpt's nn.Linear keeps [out, in] as gptc does; GPT-2's Conv1D
// keeps [in, out], so hf's block matrices are transposed (c_attn is the
// [3d, d] of q, k and v, one under the other, transposed). A parameter
// with no counterpart (value embeddings, skip weights, lambdas; modded-
// nanogpt's fused QKV) keeps its gptc name behind the prefix `gptc.`,
// which --init reads back.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_PARAMNAMES_H
#define GPTC_RUNTIME_PARAMNAMES_H

#include <string>

namespace gptc::runtime {

enum class NameScheme { ModdedNanoGpt, HuggingFace, Gptc };

/// "modded-nanogpt", "hf" or "gptc" as a scheme; false for another word.
bool parseNameScheme(const std::string &word, NameScheme &scheme);
/// The words parseNameScheme takes: "modded-nanogpt, hf or gptc".
const char *nameSchemeWords();
const char *nameSchemeWord(NameScheme scheme);

/// The prefix of a parameter's name in a scheme that has no name for it.
constexpr const char *kGptcNamePrefix = "gptc.";

/// Where a gptc parameter goes in a scheme's state dict.
struct ExternalName {
  std::string name;
  /// Whether the scheme has a name for it (otherwise `name` is the gptc
  /// name behind kGptcNamePrefix).
  bool mapped = false;
  /// Its rows are part `part` of `parts` equal parts of the tensor `name`
  /// (hf's c_attn of q, k and v); parts = 1 for the whole tensor.
  int part = 0, parts = 1;
  /// Stored transposed ([in, out]: GPT-2's Conv1D), after the parts are
  /// joined.
  bool transposed = false;
};

/// The name of the gptc parameter `gptcName` in `scheme`.
ExternalName externalName(const std::string &gptcName, NameScheme scheme);

/// The gptc name of a modded-nanogpt state-dict name (a torch.compile'd
/// model's `_orig_mod.` prefix dropped) or of a `gptc.`-prefixed one;
/// any other name as it is.
std::string gptcNameOfModded(const std::string &name);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_PARAMNAMES_H
