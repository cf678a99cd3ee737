//===- SpecSchema.h - The table of every key a spec may hold ----*- C++ -*-===//
//
// The single source of truth for the YAML schema: one SchemaEntry per key
// with its dotted path, value type, default (or "required"), valid range,
// one-line documentation and the setter that writes the ModelSpec field.
// The parser validates against it, applies its defaults, and models/README.md
// embeds the Markdown table rendered from it (gptc-spec-doc prints it).
//
// Paths use `*` for the user-chosen optimizer group name:
// `optimizer.groups.*.lr`.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_SPECSCHEMA_H
#define GPTC_FRONTEND_SPECSCHEMA_H

#include "frontend/ModelSpec.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gptc {

/// The type of a key's value.
enum class ValueKind {
  Int,
  Float,
  Bool,
  String,
  Enum,
  StringList,
  FloatList,
  EnumList
};

/// A value converted from YAML; only the member matching the entry's
/// ValueKind is meaningful.
struct SpecValue {
  int64_t intValue = 0;
  double floatValue = 0.0;
  bool boolValue = false;
  std::string stringValue;
  int enumValue = 0; ///< index into the entry's spellings
  std::vector<std::string> strings;
  std::vector<double> floats;
  std::vector<int> enums;

  template <typename E> E as() const { return static_cast<E>(enumValue); }
};

/// Writes a converted value into the spec; `group` is the group being built
/// for `optimizer.groups.*` keys and null otherwise.
using SpecSetter = std::function<void(ModelSpec &spec, OptimizerGroup *group,
                                      const SpecValue &value)>;

/// Inclusive or exclusive bounds on a number (or on each list element).
struct NumberRange {
  std::optional<double> min, max;
  bool minExclusive = false;
  bool maxExclusive = false;

  bool contains(double v) const;
  /// ">= 1", "> 0", "in [0, 1)", or "" when unbounded.
  std::string str() const;
};

struct SchemaEntry {
  std::string path; ///< "model.n_layer", "optimizer.groups.*.lr"
  ValueKind kind = ValueKind::Int;
  /// The accepted spellings of Enum and EnumList values, by enum value.
  const std::vector<std::string> *spellings = nullptr;
  /// The default as YAML text ("0.95", "[0.9, 0.95]", "sum"); empty
  /// optional = the key is required.
  std::optional<std::string> defaultValue;
  NumberRange range;
  size_t listLength = 0; ///< exact length of list values; 0 = any
  size_t minListLength = 0;
  /// The optimizer whose groups alone take an `optimizer.groups.*.KEY`
  /// entry (OptimizerTable.h); none: every group's.
  std::optional<OptimizerKind> scope;
  std::string doc;
  SpecSetter set; ///< null for `extends`, which the loader consumes

  bool required() const { return !defaultValue.has_value(); }
  bool isGroupKey() const;
  /// The last path component ("lr" for "optimizer.groups.*.lr").
  std::string name() const;
  /// "int >= 1", "enum: gelu, relu2", "list of 3 float", ...
  std::string typeString() const;
};

/// Every key, in documentation order.
const std::vector<SchemaEntry> &specSchema();

/// The entry for a pattern path (group names replaced by `*`), or null.
const SchemaEntry *findSchemaEntry(const std::string &pattern);

/// True for the map-valued sections: "model", "model.attention",
/// "optimizer", "optimizer.groups", "optimizer.groups.*", ...
bool isSchemaSection(const std::string &pattern);

/// The key names allowed directly under a section ("" = top level): its
/// leaves and sub-sections. Used for "did you mean" suggestions.
std::vector<std::string> schemaChildren(const std::string &section);

/// The schema as a Markdown table: | key | type | default | meaning |.
std::string renderSchemaMarkdown();

/// The YAML spellings of an enum, indexed by the enum's value. toString()
/// returns these spellings too.
template <typename E> const std::vector<std::string> &enumSpellings();
template <> const std::vector<std::string> &enumSpellings<DType>();
template <> const std::vector<std::string> &enumSpellings<Activation>();
template <> const std::vector<std::string> &enumSpellings<QKVLayout>();
template <> const std::vector<std::string> &enumSpellings<QKNorm>();
template <> const std::vector<std::string> &enumSpellings<Rotary>();
template <> const std::vector<std::string> &enumSpellings<Softcap>();
template <> const std::vector<std::string> &enumSpellings<WindowUnit>();
template <> const std::vector<std::string> &enumSpellings<Rounding>();
template <> const std::vector<std::string> &enumSpellings<LayerWindow>();
template <> const std::vector<std::string> &enumSpellings<ValueEmbeddings>();
template <> const std::vector<std::string> &enumSpellings<OptimizerKind>();
template <> const std::vector<std::string> &enumSpellings<MomentumForm>();
template <> const std::vector<std::string> &enumSpellings<NSForm>();
template <> const std::vector<std::string> &enumSpellings<NSBackend>();
template <> const std::vector<std::string> &enumSpellings<NSNormalize>();
template <> const std::vector<std::string> &enumSpellings<UpdateScale>();
template <> const std::vector<std::string> &enumSpellings<MuonDistribution>();
template <> const std::vector<std::string> &enumSpellings<ParamStorage>();
template <> const std::vector<std::string> &enumSpellings<GradReduce>();

/// The closest of `candidates` to `word` (small edit distance), or "".
std::string closestSpelling(const std::string &word,
                            const std::vector<std::string> &candidates);

} // namespace gptc

#endif // GPTC_FRONTEND_SPECSCHEMA_H
