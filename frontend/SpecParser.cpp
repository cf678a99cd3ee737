//===- SpecParser.cpp - YAML spec -> ModelSpec ----------------------------===//
//
// Loads the spec tree (SpecTree.h: extends, --set), walks it against the
// schema (SpecSchema.h) converting and range-checking every leaf, applies
// the schema's defaults, checks required keys, then the cross-field rules
// (SpecChecks.cpp) and the optimizer-group assignment (Parameters.h).
// The first problem found is reported; nothing throws.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecParser.h"
#include "frontend/OptimizerTable.h"
#include "frontend/Parameters.h"
#include "frontend/SpecChecks.h"
#include "frontend/SpecSchema.h"
#include "frontend/SpecTree.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace gptc {

std::string SpecError::str() const {
  std::string where = loc.file;
  if (loc.line > 0)
    where += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  return where + ": error: " + (key.empty() ? "" : key + ": ") + message;
}

namespace {

std::string joinPath(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

bool isDigits(const std::string &s, size_t from) {
  return from < s.size() && std::all_of(
                                s.begin() + from, s.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
}

/// YAML 1.2 core-schema decimal integer: [-+]?[0-9]+.
bool parseInteger(const std::string &text, int64_t &value, bool &overflow) {
  size_t start = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  overflow = false;
  if (!isDigits(text, start))
    return false;
  // from_chars takes '-' but not '+'.
  const char *first = text.data() + (text[0] == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(first, text.data() + text.size(), value);
  overflow = ec == std::errc::result_out_of_range;
  return ec == std::errc() || overflow;
}

/// YAML 1.2 core-schema finite float: [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)
/// ([eE][-+]?[0-9]+)?.
bool parseFloat(const std::string &text, double &value) {
  size_t i = 0, n = text.size();
  if (i < n && (text[i] == '-' || text[i] == '+'))
    ++i;
  const size_t mantissaStart = i;
  size_t digits = 0;
  while (i < n && std::isdigit(static_cast<unsigned char>(text[i])))
    ++i, ++digits;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i])))
      ++i, ++digits;
  }
  if (digits == 0 || i == mantissaStart)
    return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '-' || text[i] == '+'))
      ++i;
    if (!isDigits(text.substr(i), 0))
      return false;
    i = n;
  }
  if (i != n)
    return false;
  const char *first = text.data() + (text[0] == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(first, text.data() + n, value);
  return ec == std::errc() && ptr == text.data() + n && std::isfinite(value);
}

const char *kindNoun(ValueKind kind) {
  switch (kind) {
  case ValueKind::Int:
    return "an integer";
  case ValueKind::Float:
  case ValueKind::FloatList:
    return "a number";
  case ValueKind::Bool:
    return "true or false";
  case ValueKind::String:
  case ValueKind::StringList:
    return "a string";
  case ValueKind::Enum:
  case ValueKind::EnumList:
    return "a name";
  }
  return "a value";
}

/// Walks the merged tree against the schema and fills a ModelSpec.
class SpecBuilder {
public:
  SpecBuilder(ModelSpec &spec, SpecError &error)
      : spec(spec), error(error), checks(spec, error, records) {}

  bool build(const SpecNode &root) {
    if (!applyDefaults(nullptr) || !walkMap(root, "", ""))
      return false;
    if (!checkRequired() || !resolveFractions() || !checks.run())
      return false;
    std::vector<ParameterInfo> params = enumerateParameters(spec);
    return assignGroups(spec, params, error);
  }

private:
  bool fail(const SourceLoc &loc, const std::string &key,
            const std::string &message) {
    error.loc = loc;
    error.key = key;
    error.message = message;
    return false;
  }

  /// Sets every defaulted key of the spec (group == null) or of one group.
  bool applyDefaults(OptimizerGroup *group) {
    for (const SchemaEntry &entry : specSchema()) {
      if (entry.required() || !entry.set || entry.isGroupKey() != !!group)
        continue;
      SpecNode node;
      SpecValue value;
      if (!parseYamlText(*entry.defaultValue, SourceLoc{"<schema>", 1, 1}, 2,
                         node, error) ||
          !convert(entry, node, entry.path, value))
        return fail(SourceLoc{"<schema>", 0, 0}, entry.path,
                    "internal error: bad schema default: " + error.message);
      entry.set(spec, group, value);
    }
    return true;
  }

  void record(const std::string &path, const SourceLoc &keyLoc,
              const SpecNode &value) {
    records[path] = KeyRecord{keyLoc, value.loc, value.layer};
    spec.locs[path] = keyLoc;
  }

  bool unknownKey(const SpecMapEntry &entry, const std::string &path,
                  const std::string &pattern, const std::string &where) {
    const std::string key = printableText(entry.key);
    std::string message = "unknown key '" + key + "' " + where;
    // Other trainers' names for gptc's keys.
    static const std::map<std::string, std::string> kForeignKeys = {
        {"lr", "learning rates belong to the optimizer groups: "
               "optimizer.groups.NAME.lr"},
        {"learning_rate", "learning rates belong to the optimizer groups: "
                          "optimizer.groups.NAME.lr"},
        {"batch_size", "gptc calls it training.batch (sequences per step, "
                       "all ranks) or training.device_batch (per rank and "
                       "micro-step)"},
        {"max_iters", "gptc calls it training.steps"},
        {"num_iterations", "gptc calls it training.steps"},
        {"iters", "gptc calls it training.steps"},
        {"block_size", "gptc calls it training.seq_len"},
        {"sequence_length", "gptc calls it training.seq_len"},
        {"n_embd", "gptc calls it model.d_model"},
        {"vocab", "gptc calls it model.vocab_size"},
        {"warmup_iters", "gptc calls it schedule.warmup_steps"},
        {"weight_decay", "weight decay belongs to the optimizer groups: "
                         "optimizer.groups.NAME.weight_decay"},
    };
    if (auto it = kForeignKeys.find(entry.key); it != kForeignKeys.end())
      return fail(entry.keyLoc, joinPath(path, key),
                  message + "; " + it->second);
    std::string suggestion =
        closestSpelling(entry.key, schemaChildren(pattern));
    if (suggestion.empty() && !pattern.empty() &&
        pattern != "optimizer.groups.*")
      suggestion = closestSpelling(entry.key, schemaChildren(""));
    // A key written in the wrong section: `n_layer:` at the top level.
    for (const SchemaEntry &s : specSchema())
      if (suggestion.empty() && !s.isGroupKey() && s.name() == entry.key)
        suggestion = s.path;
    if (!suggestion.empty())
      message += " (did you mean '" + suggestion + "'?)";
    return fail(entry.keyLoc, joinPath(path, key), message);
  }

  bool walkMap(const SpecNode &map, const std::string &path,
               const std::string &pattern) {
    for (const SpecMapEntry &entry : map.entries) {
      const std::string childPath = joinPath(path, entry.key);
      const std::string childPattern = joinPath(pattern, entry.key);
      if (entry.key.find('.') != std::string::npos)
        return fail(entry.keyLoc, printableText(childPath),
                    "a key is one name, not a dotted path; nest maps "
                    "instead (model: {n_layer: 4})");
      if (isSchemaSection(childPattern)) {
        if (entry.value.kind != SpecNode::Kind::Map)
          return fail(entry.value.loc, childPath,
                      "expected a map of keys, got " + entry.value.describe());
        record(childPath, entry.keyLoc, entry.value);
        bool ok = childPattern == "optimizer.groups"
                      ? walkGroups(entry.value, childPath)
                      : walkMap(entry.value, childPath, childPattern);
        if (!ok)
          return false;
        continue;
      }
      const SchemaEntry *schema = findSchemaEntry(childPattern);
      if (!schema || schema->isGroupKey() || !schema->set)
        return unknownKey(entry, path, pattern,
                          path.empty() ? "at the top level"
                                       : "in '" + path + "'");
      if (!setLeaf(*schema, entry, childPath, nullptr))
        return false;
    }
    return true;
  }

  bool walkGroups(const SpecNode &groups, const std::string &path) {
    for (const SpecMapEntry &entry : groups.entries) {
      const std::string groupPath = joinPath(path, printableText(entry.key));
      const bool validName =
          !entry.key.empty() &&
          std::all_of(entry.key.begin(), entry.key.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                   c == '-';
          });
      if (!validName)
        return fail(entry.keyLoc, groupPath,
                    "optimizer group names may hold only letters, digits, "
                    "'_' and '-'");
      if (entry.value.kind != SpecNode::Kind::Map)
        return fail(entry.value.loc, groupPath,
                    "expected a map of group settings (kind:, params:, lr:, "
                    "...), got " +
                        entry.value.describe());
      std::vector<std::string> others;
      for (const SpecMapEntry &other : groups.entries)
        if (&other != &entry)
          others.push_back(other.key);
      if (!walkGroup(entry, groupPath, others))
        return false;
    }
    return true;
  }

  /// `others`: the names of the other groups, for a group that a --set
  /// of a misspelt group name made (it has no kind).
  bool walkGroup(const SpecMapEntry &groupEntry, const std::string &path,
                 const std::vector<std::string> &others) {
    record(path, groupEntry.keyLoc, groupEntry.value);
    OptimizerGroup group;
    if (!applyDefaults(&group))
      return false;
    group.name = groupEntry.key;
    group.loc = groupEntry.keyLoc;

    const std::string where = "in optimizer group '" + group.name + "'";
    auto kindIt = std::find_if(
        groupEntry.value.entries.begin(), groupEntry.value.entries.end(),
        [](const SpecMapEntry &e) { return e.key == "kind"; });
    if (kindIt == groupEntry.value.entries.end()) {
      std::string like = closestSpelling(group.name, others);
      if (!like.empty())
        return fail(groupEntry.keyLoc, path,
                    "no optimizer group '" + group.name +
                        "' (a new group needs kind: muon or adam); did you "
                        "mean '" +
                        like + "'?");
      return fail(groupEntry.keyLoc, path + ".kind",
                  "missing required key 'kind' (muon or adam) " + where);
    }
    if (!setLeaf(*findSchemaEntry("optimizer.groups.*.kind"), *kindIt,
                 path + ".kind", &group))
      return false;

    for (const SpecMapEntry &entry : groupEntry.value.entries) {
      if (entry.key == "kind")
        continue;
      const std::string childPath = path + "." + printableText(entry.key);
      const SchemaEntry *schema =
          findSchemaEntry("optimizer.groups.*." + entry.key);
      if (!schema)
        return unknownKey(entry, path, "optimizer.groups.*", where);
      if (schema->scope && *schema->scope != group.kind)
        return fail(entry.keyLoc, childPath,
                    "'" + entry.key + "' applies to " +
                        optimizerInfo(*schema->scope).name +
                        " groups only; group '" + group.name + "' is " +
                        toString(group.kind));
      if (!setLeaf(*schema, entry, childPath, &group))
        return false;
    }
    for (const SchemaEntry &schema : specSchema())
      if (schema.isGroupKey() && schema.required() &&
          !records.count(path + "." + schema.name()))
        return fail(groupEntry.keyLoc, path + "." + schema.name(),
                    "missing required key '" + schema.name() + "' " + where);
    spec.groups.push_back(std::move(group));
    return true;
  }

  bool setLeaf(const SchemaEntry &schema, const SpecMapEntry &entry,
               const std::string &path, OptimizerGroup *group) {
    SpecValue value;
    if (!convert(schema, entry.value, path, value))
      return false;
    record(path, entry.keyLoc, entry.value);
    schema.set(spec, group, value);
    return true;
  }

  bool convert(const SchemaEntry &schema, const SpecNode &node,
               const std::string &path, SpecValue &value) {
    ValueKind element;
    switch (schema.kind) {
    case ValueKind::StringList:
      element = ValueKind::String;
      break;
    case ValueKind::FloatList:
      element = ValueKind::Float;
      break;
    case ValueKind::EnumList:
      element = ValueKind::Enum;
      break;
    default:
      return convertScalar(schema, schema.kind, node, path, value);
    }
    if (node.kind != SpecNode::Kind::Sequence)
      return fail(node.loc, path,
                  "expected a list (" + schema.typeString() + "), got " +
                      node.describe());
    if (schema.listLength && node.items.size() != schema.listLength)
      return fail(node.loc, path,
                  "expected " + std::to_string(schema.listLength) +
                      " values, got " + std::to_string(node.items.size()));
    if (node.items.size() < schema.minListLength)
      return fail(node.loc, path, "expected a non-empty list");
    for (const SpecNode &item : node.items) {
      SpecValue one;
      if (!convertScalar(schema, element, item, path, one))
        return false;
      value.strings.push_back(one.stringValue);
      value.floats.push_back(one.floatValue);
      value.enums.push_back(one.enumValue);
    }
    return true;
  }

  bool convertScalar(const SchemaEntry &schema, ValueKind kind,
                     const SpecNode &node, const std::string &path,
                     SpecValue &value) {
    const bool plain = node.kind == SpecNode::Kind::Scalar && !node.quoted;
    const bool anyScalar = node.kind == SpecNode::Kind::Scalar;
    auto wrongType = [&] {
      return fail(node.loc, path,
                  std::string("expected ") + kindNoun(kind) + ", got " +
                      node.describe());
    };
    auto checkRange = [&](double v) {
      if (schema.range.contains(v))
        return true;
      return fail(node.loc, path,
                  node.scalar + " is out of range (must be " +
                      schema.range.str() + ")");
    };
    switch (kind) {
    case ValueKind::Int: {
      bool overflow = false;
      if (!plain || !parseInteger(node.scalar, value.intValue, overflow))
        return wrongType();
      if (overflow)
        return fail(node.loc, path,
                    printableText(node.scalar) + " is out of range (must be " +
                        schema.range.str() + ")");
      return checkRange(static_cast<double>(value.intValue));
    }
    case ValueKind::Float:
      if (!plain || !parseFloat(node.scalar, value.floatValue))
        return wrongType();
      return checkRange(value.floatValue);
    case ValueKind::Bool: {
      const std::string &s = node.scalar;
      if (plain && (s == "true" || s == "True" || s == "TRUE"))
        value.boolValue = true;
      else if (plain && (s == "false" || s == "False" || s == "FALSE"))
        value.boolValue = false;
      else
        return wrongType();
      return true;
    }
    case ValueKind::String:
      if (!anyScalar)
        return wrongType();
      value.stringValue = node.scalar;
      return true;
    case ValueKind::Enum: {
      if (!anyScalar)
        return wrongType();
      const std::vector<std::string> &spellings = *schema.spellings;
      auto it = std::find(spellings.begin(), spellings.end(), node.scalar);
      if (it != spellings.end()) {
        value.enumValue = static_cast<int>(it - spellings.begin());
        return true;
      }
      std::string allowed;
      for (const std::string &s : spellings)
        allowed += (allowed.empty() ? "" : ", ") + s;
      std::string message = "unknown value '" + printableText(node.scalar) +
                            "'; expected one of: " + allowed;
      std::string suggestion = closestSpelling(node.scalar, spellings);
      if (!suggestion.empty())
        message += " (did you mean '" + suggestion + "'?)";
      return fail(node.loc, path, message);
    }
    default:
      return wrongType();
    }
  }

  /// Schedule lengths given as shares of training.steps become steps, so
  /// that --set training.steps=N alone rescales them.
  bool resolveFractions() {
    const double steps = static_cast<double>(spec.training.steps);
    auto share = [&](double fraction) {
      return std::max<int64_t>(std::llround(fraction * steps), 1);
    };
    auto both = [&](const std::string &stepsKey, const std::string &key) {
      return fail(spec.locOf(key), key,
                  "set " + stepsKey.substr(stepsKey.rfind('.') + 1) + " or " +
                      key.substr(key.rfind('.') + 1) + ", not both");
    };
    ScheduleSpec &s = spec.schedule;
    if (s.warmupFraction > 0) {
      if (s.warmupSteps > 0)
        return both("schedule.warmup_steps", "schedule.warmup_fraction");
      s.warmupSteps = share(s.warmupFraction);
    }
    for (OptimizerGroup &g : spec.groups) {
      if (g.momentumWarmupFraction <= 0)
        continue;
      const std::string prefix = "optimizer.groups." + g.name + ".";
      if (g.momentumWarmupSteps > 0)
        return both(prefix + "momentum_warmup_steps",
                    prefix + "momentum_warmup_fraction");
      g.momentumWarmupSteps = share(g.momentumWarmupFraction);
    }
    return true;
  }

  bool checkRequired() {
    for (const SchemaEntry &schema : specSchema()) {
      if (!schema.required() || schema.isGroupKey() ||
          records.count(schema.path))
        continue;
      // Point at the nearest section that is present, else the file.
      std::string section = schema.path;
      SourceLoc loc{spec.file, 1, 1};
      std::string where = "at the top level";
      for (size_t dot; (dot = section.rfind('.')) != std::string::npos;) {
        section.resize(dot);
        if (records.count(section)) {
          loc = records[section].keyLoc;
          where = "in '" + section + "'";
          break;
        }
      }
      return fail(loc, schema.path,
                  "missing required key '" + schema.name() + "' " + where);
    }
    if (spec.groups.empty()) {
      SourceLoc loc = spec.locOf("optimizer.groups");
      return fail(loc, "optimizer.groups",
                  "at least one optimizer group is required");
    }
    return true;
  }

  ModelSpec &spec;
  SpecError &error;
  KeyRecords records;
  SpecChecks checks;
};

bool parseTree(SpecNode &root, const std::string &fileName,
               const std::vector<std::string> &overrides, ModelSpec &out,
               SpecError &error) {
  for (const std::string &override : overrides)
    if (!applyOverride(root, override, error))
      return false;
  ModelSpec spec;
  spec.file = fileName;
  SpecBuilder builder(spec, error);
  if (!builder.build(root))
    return false;
  spec.resolvedYaml = renderSpecYaml(root);
  out = std::move(spec);
  return true;
}

bool parseSpec(const std::string &fileName, const std::string *text,
               const std::vector<std::string> &overrides, ModelSpec &out,
               SpecError &error) {
  try {
    SpecNode root;
    if (!loadSpecTree(fileName, text, root, error))
      return false;
    return parseTree(root, fileName, overrides, out, error);
  } catch (const std::exception &e) {
    error = SpecError{SourceLoc{fileName, 0, 0}, "",
                      std::string("internal error: ") + e.what()};
  } catch (...) {
    error = SpecError{SourceLoc{fileName, 0, 0}, "", "internal error"};
  }
  return false;
}

} // namespace

bool parseSpecFile(const std::string &path,
                   const std::vector<std::string> &overrides, ModelSpec &out,
                   SpecError &error) {
  return parseSpec(path, nullptr, overrides, out, error);
}

bool parseSpecString(const std::string &text, const std::string &fileName,
                     const std::vector<std::string> &overrides, ModelSpec &out,
                     SpecError &error) {
  return parseSpec(fileName, &text, overrides, out, error);
}

} // namespace gptc
