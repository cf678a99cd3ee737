//===- SpecSchema.cpp - Schema support: spellings, lookup, Markdown -------===//
//
// The enum spellings, entry lookup, ranges and type strings, "did you mean"
// suggestions, and the Markdown rendering embedded in models/README.md. The
// entries themselves are in SpecSchemaTable.cpp.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecSchema.h"
#include "frontend/OptimizerTable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace gptc {

//===----------------------------------------------------------------------===//
// Enum spellings
//===----------------------------------------------------------------------===//

#define GPTC_SPELLINGS(ENUM, ...)                                              \
  template <> const std::vector<std::string> &enumSpellings<ENUM>() {          \
    static const std::vector<std::string> spellings = {__VA_ARGS__};           \
    return spellings;                                                          \
  }

GPTC_SPELLINGS(DType, "f32", "bf16", "f64")
GPTC_SPELLINGS(Activation, "gelu", "relu2")
GPTC_SPELLINGS(QKVLayout, "fused", "separate")
GPTC_SPELLINGS(QKNorm, "none", "after_rotary", "before_rotary")
GPTC_SPELLINGS(Rotary, "standard", "half_truncated")
GPTC_SPELLINGS(Softcap, "none", "tanh", "sigmoid")
GPTC_SPELLINGS(WindowUnit, "none", "tokens", "blocks", "record_blocks")
GPTC_SPELLINGS(Rounding, "floor", "ceil")
GPTC_SPELLINGS(LayerWindow, "long", "short")
GPTC_SPELLINGS(ValueEmbeddings, "none", "mirrored", "ends")
// The optimizers' names come from their table, in OptimizerKind's order.
template <> const std::vector<std::string> &enumSpellings<OptimizerKind>() {
  static const std::vector<std::string> spellings = [] {
    std::vector<std::string> names;
    for (const OptimizerInfo &info : optimizerTable())
      names.push_back(info.name);
    return names;
  }();
  return spellings;
}
GPTC_SPELLINGS(MomentumForm, "sum", "lerp")
GPTC_SPELLINGS(NSForm, "apply_then_combine", "polynomial_then_apply")
GPTC_SPELLINGS(NSBackend, "newton_schulz", "svd")
GPTC_SPELLINGS(NSNormalize, "after_cast", "before_cast")
GPTC_SPELLINGS(UpdateScale, "none", "sqrt_max_dim", "sqrt_max_1_ratio")
GPTC_SPELLINGS(MuonDistribution, "none", "all_reduce_flat",
               "all_gather_grouped")
GPTC_SPELLINGS(ParamStorage, "compute", "bf16")
GPTC_SPELLINGS(GradReduce, "compute", "bf16")

#undef GPTC_SPELLINGS

//===----------------------------------------------------------------------===//
// NumberRange and SchemaEntry
//===----------------------------------------------------------------------===//

namespace {

/// "1000000000", "0.95", "1e-07".
std::string formatNumber(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16)
    return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string joinSpellings(const std::vector<std::string> &spellings) {
  std::string s;
  for (size_t i = 0; i < spellings.size(); ++i)
    s += (i ? ", " : "") + spellings[i];
  return s;
}

} // namespace

bool NumberRange::contains(double v) const {
  if (!std::isfinite(v))
    return false;
  if (min && (minExclusive ? v <= *min : v < *min))
    return false;
  if (max && (maxExclusive ? v >= *max : v > *max))
    return false;
  return true;
}

std::string NumberRange::str() const {
  if (min && max)
    return std::string("in ") + (minExclusive ? "(" : "[") +
           formatNumber(*min) + ", " + formatNumber(*max) +
           (maxExclusive ? ")" : "]");
  if (min)
    return (minExclusive ? "> " : ">= ") + formatNumber(*min);
  if (max)
    return (maxExclusive ? "< " : "<= ") + formatNumber(*max);
  return "";
}

bool SchemaEntry::isGroupKey() const {
  return path.rfind("optimizer.groups.*.", 0) == 0;
}

std::string SchemaEntry::name() const {
  return path.substr(path.rfind('.') + 1);
}

std::string SchemaEntry::typeString() const {
  std::string s;
  switch (kind) {
  case ValueKind::Int:
    s = "int";
    break;
  case ValueKind::Float:
    s = "float";
    break;
  case ValueKind::Bool:
    return "bool";
  case ValueKind::String:
    return "string";
  case ValueKind::Enum:
    return "enum: " + joinSpellings(*spellings);
  case ValueKind::StringList:
  case ValueKind::FloatList:
  case ValueKind::EnumList: {
    s = "list of ";
    if (listLength)
      s += std::to_string(listLength) + " ";
    else if (minListLength)
      s += std::to_string(minListLength) + "+ ";
    s += kind == ValueKind::StringList  ? "string"
         : kind == ValueKind::FloatList ? "float"
                                        : "(" + joinSpellings(*spellings) + ")";
    break;
  }
  }
  std::string r = range.str();
  return r.empty() ? s : s + " " + r;
}

//===----------------------------------------------------------------------===//
// Lookup and rendering (the table itself is in SpecSchemaTable.cpp)
//===----------------------------------------------------------------------===//

namespace {

const char *const kSections[] = {
    "model",     "model.attention",  "training",           "schedule",
    "optimizer", "optimizer.groups", "optimizer.groups.*", "validation",
    "data",      "compile"};

} // namespace

const SchemaEntry *findSchemaEntry(const std::string &pattern) {
  for (const SchemaEntry &entry : specSchema())
    if (entry.path == pattern)
      return &entry;
  return nullptr;
}

bool isSchemaSection(const std::string &pattern) {
  return std::any_of(std::begin(kSections), std::end(kSections),
                     [&](const char *s) { return pattern == s; });
}

std::vector<std::string> schemaChildren(const std::string &section) {
  const std::string prefix = section.empty() ? "" : section + ".";
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add = [&](const std::string &path) {
    if (path.compare(0, prefix.size(), prefix) != 0 || path == section)
      return;
    std::string rest = path.substr(prefix.size());
    std::string child = rest.substr(0, rest.find('.'));
    if (child != "*" && seen.insert(child).second)
      names.push_back(child);
  };
  for (const SchemaEntry &entry : specSchema())
    add(entry.path);
  for (const char *s : kSections)
    add(s);
  return names;
}

std::string renderSchemaMarkdown() {
  auto cell = [](std::string text) {
    std::string out;
    for (char c : text)
      out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string md = "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const SchemaEntry &e : specSchema()) {
    std::string meaning = e.doc;
    if (e.scope)
      meaning =
          std::string(optimizerInfo(*e.scope).title) + " only. " + meaning;
    md += "| `" + e.path + "` | " + cell(e.typeString()) + " | " +
          (e.required() ? std::string("required")
                        : "`" + cell(*e.defaultValue) + "`") +
          " | " + cell(meaning) + " |\n";
  }
  // The optimizer table (OptimizerKind.h), under the keys.
  md += "\nThe optimizers of `optimizer.groups.*.kind` (their table: "
        "frontend/OptimizerKind.h):\n\n| kind | state per parameter | keys "
        "of its own | op | lowered by |\n|---|---|---|---|---|\n";
  const std::string groupKey = "optimizer.groups.*.";
  for (const OptimizerInfo &info : optimizerTable()) {
    std::string state, keys;
    for (const char *slot : info.state)
      state += (state.empty() ? "`" : ", `") + std::string(slot) + "`";
    for (const std::string &key : optimizerKeys(info.kind))
      keys += (keys.empty() ? "`" : ", `") + key.substr(groupKey.size()) + "`";
    md += "| `" + std::string(info.name) + "` | " +
          (state.empty() ? "none" : state) + " | " +
          (keys.empty() ? "none" : keys) + " | `" + info.op + "` | " +
          cell(info.lowering) + " |\n";
  }
  return md;
}

std::string closestSpelling(const std::string &word,
                            const std::vector<std::string> &candidates) {
  auto distance = [](const std::string &a, const std::string &b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
      row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                           diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    return row[b.size()];
  };
  // Score in half edits: a candidate that extends the word (or that the
  // word extends) wins ties, so 'relu' suggests 'relu2' before 'gelu'.
  auto isPrefix = [](const std::string &a, const std::string &b) {
    return a.size() <= b.size() && b.compare(0, a.size(), a) == 0;
  };
  std::string best;
  size_t bestScore = 2 * (std::max<size_t>(2, word.size() / 3) + 1);
  for (const std::string &candidate : candidates) {
    size_t score = 2 * distance(word, candidate);
    if (isPrefix(word, candidate) || isPrefix(candidate, word))
      score = score ? score - 1 : 0;
    if (score < bestScore) {
      bestScore = score;
      best = candidate;
    }
  }
  return best;
}

} // namespace gptc
