//===- ParamNames.cpp - Parameter names of other trainers -----------------===//

#include "runtime/ParamNames.h"

#include <cstring>
#include <optional>

namespace gptc::runtime {

namespace {

/// One row of the table: '*' in a pattern is a block's index (digits).
struct Rule {
  const char *gptc;
  const char *modded; ///< null: modded-nanogpt has no such parameter
  const char *hf;
  int hfPart, hfParts;
  bool hfTransposed;
};

constexpr Rule kRules[] = {
    {"wte", "transformer.wte.weight", "transformer.wte.weight", 0, 1, false},
    {"blocks.*.attn.q", "transformer.h.*.attn.c_q.weight",
     "transformer.h.*.attn.c_attn.weight", 0, 3, true},
    {"blocks.*.attn.k", "transformer.h.*.attn.c_k.weight",
     "transformer.h.*.attn.c_attn.weight", 1, 3, true},
    {"blocks.*.attn.v", "transformer.h.*.attn.c_v.weight",
     "transformer.h.*.attn.c_attn.weight", 2, 3, true},
    {"blocks.*.attn.qkv", nullptr, "transformer.h.*.attn.c_attn.weight", 0, 1,
     true},
    {"blocks.*.attn.proj", "transformer.h.*.attn.c_proj.weight",
     "transformer.h.*.attn.c_proj.weight", 0, 1, true},
    {"blocks.*.mlp.fc", "transformer.h.*.mlp.c_fc.weight",
     "transformer.h.*.mlp.c_fc.weight", 0, 1, true},
    {"blocks.*.mlp.proj", "transformer.h.*.mlp.c_proj.weight",
     "transformer.h.*.mlp.c_proj.weight", 0, 1, true},
    {"lm_head", "lm_head.weight", "lm_head.weight", 0, 1, false},
};

/// The index '*' stands for when `name` matches `pattern` ("" when the
/// pattern has none), or nothing.
std::optional<std::string> match(const char *pattern, const std::string &name) {
  const char *star = std::strchr(pattern, '*');
  if (!star)
    return name == pattern ? std::optional<std::string>("") : std::nullopt;
  size_t head = size_t(star - pattern), tail = std::strlen(star + 1);
  if (name.size() <= head + tail || name.compare(0, head, pattern, head) != 0 ||
      name.compare(name.size() - tail, tail, star + 1) != 0)
    return std::nullopt;
  std::string index = name.substr(head, name.size() - head - tail);
  for (char c : index)
    if (c < '0' || c > '9')
      return std::nullopt;
  return index;
}

std::string fill(const char *pattern, const std::string &index) {
  std::string out = pattern;
  size_t star = out.find('*');
  if (star != std::string::npos)
    out.replace(star, 1, index);
  return out;
}

} // namespace

bool parseNameScheme(const std::string &word, NameScheme &scheme) {
  for (NameScheme s :
       {NameScheme::ModdedNanoGpt, NameScheme::HuggingFace, NameScheme::Gptc})
    if (word == nameSchemeWord(s)) {
      scheme = s;
      return true;
    }
  return false;
}

const char *nameSchemeWords() { return "modded-nanogpt, hf or gptc"; }

const char *nameSchemeWord(NameScheme scheme) {
  switch (scheme) {
  case NameScheme::ModdedNanoGpt:
    return "modded-nanogpt";
  case NameScheme::HuggingFace:
    return "hf";
  case NameScheme::Gptc:
    return "gptc";
  }
  return "gptc";
}

ExternalName externalName(const std::string &gptcName, NameScheme scheme) {
  ExternalName out;
  if (scheme == NameScheme::Gptc) {
    out.name = gptcName;
    out.mapped = true;
    return out;
  }
  for (const Rule &rule : kRules) {
    std::optional<std::string> index = match(rule.gptc, gptcName);
    if (!index)
      continue;
    if (scheme == NameScheme::ModdedNanoGpt && rule.modded) {
      out.name = fill(rule.modded, *index);
      out.mapped = true;
    } else if (scheme == NameScheme::HuggingFace) {
      out.name = fill(rule.hf, *index);
      out.mapped = true;
      out.part = rule.hfPart;
      out.parts = rule.hfParts;
      out.transposed = rule.hfTransposed;
    }
    break;
  }
  if (!out.mapped)
    out.name = kGptcNamePrefix + gptcName;
  return out;
}

std::string gptcNameOfModded(const std::string &name) {
  const std::string compiled = "_orig_mod.";
  std::string n = name.compare(0, compiled.size(), compiled) == 0
                      ? name.substr(compiled.size())
                      : name;
  const size_t prefix = std::strlen(kGptcNamePrefix);
  if (n.compare(0, prefix, kGptcNamePrefix) == 0)
    return n.substr(prefix);
  for (const Rule &rule : kRules)
    if (rule.modded)
      if (std::optional<std::string> index = match(rule.modded, n))
        return fill(rule.gptc, *index);
  return n;
}

} // namespace gptc::runtime
