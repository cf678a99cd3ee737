//===- SpecTree.cpp - YAML documents as located trees ---------------------===//
//
// yaml-cpp -> SpecNode conversion (1-based locations, duplicate keys, depth
// and size limits), file reading, `extends:` resolution with cycle detection,
// deep merge, and `--set` overrides. yaml-cpp reports errors by throwing;
// every exception is caught here and turned into a SpecError.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecTree.h"

// GCC 12 flags yaml-cpp's own node/impl.h with -Wdangling-pointer (a false
// positive on its temporaries); keep the noise out of our builds.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace gptc {

namespace {

/// Nesting deeper than this is an error (yaml-cpp aliases can even form
/// cycles: `a: &x [*x]`).
constexpr int kMaxDepth = 64;
/// Aliases can make a small file expand exponentially; cap the tree.
constexpr size_t kMaxNodes = 100000;
constexpr int kMaxExtendsDepth = 32;
constexpr uintmax_t kMaxFileBytes = 16u << 20;

bool fail(SpecError &error, SourceLoc loc, std::string key,
          std::string message) {
  error.loc = std::move(loc);
  error.key = std::move(key);
  error.message = std::move(message);
  return false;
}

SpecMapEntry *findEntry(SpecNode &map, const std::string &key) {
  for (SpecMapEntry &entry : map.entries)
    if (entry.key == key)
      return &entry;
  return nullptr;
}

std::string joinPath(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

/// Converts yaml-cpp nodes into SpecNodes. Positions of the node at
/// yaml-cpp's (0-based) line 0 are shifted by `origin.col - 1` so that a
/// `--set` value reports its column inside the whole `--set` argument.
class Converter {
public:
  Converter(SourceLoc origin, int layer, SpecError &error)
      : origin(std::move(origin)), layer(layer), error(error) {}

  SourceLoc locOf(const YAML::Mark &mark, const SourceLoc &fallback) const {
    if (mark.is_null() || mark.line < 0 || mark.column < 0)
      return fallback;
    SourceLoc loc;
    loc.file = origin.file;
    loc.line = origin.line + mark.line;
    loc.col = (mark.line == 0 ? origin.col : 1) + mark.column;
    return loc;
  }

  bool convert(const YAML::Node &node, const std::string &path, int depth,
               const SourceLoc &fallback, SpecNode &out) {
    out.loc = locOf(node.Mark(), fallback);
    out.layer = layer;
    if (++nodes > kMaxNodes)
      return fail(error, out.loc, path,
                  "the spec is too large (more than " +
                      std::to_string(kMaxNodes) +
                      " YAML nodes once aliases are expanded)");
    if (depth > kMaxDepth)
      return fail(error, out.loc, path,
                  "YAML nested deeper than " + std::to_string(kMaxDepth) +
                      " levels");
    const std::string &tag = node.Tag();
    if (node.IsDefined() && !node.IsNull() && tag != "?" && tag != "!" &&
        !tag.empty())
      return fail(error, out.loc, path,
                  "explicit YAML tags ('" + printableText(tag) +
                      "') are not supported");
    switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      out.kind = SpecNode::Kind::Null;
      return true;
    case YAML::NodeType::Scalar:
      out.kind = SpecNode::Kind::Scalar;
      out.scalar = node.Scalar();
      out.quoted = tag == "!";
      return true;
    case YAML::NodeType::Sequence:
      out.kind = SpecNode::Kind::Sequence;
      for (const YAML::Node &item : node) {
        out.items.emplace_back();
        if (!convert(item, path, depth + 1, out.loc, out.items.back()))
          return false;
      }
      return true;
    case YAML::NodeType::Map:
      out.kind = SpecNode::Kind::Map;
      return convertMap(node, path, depth, out);
    }
    return fail(error, out.loc, path, "unsupported YAML node");
  }

private:
  bool convertMap(const YAML::Node &node, const std::string &path, int depth,
                  SpecNode &out) {
    for (YAML::const_iterator it = node.begin(); it != node.end(); ++it) {
      const YAML::Node &key = it->first;
      SourceLoc keyLoc = locOf(key.Mark(), out.loc);
      if (!key.IsScalar())
        return fail(error, keyLoc, path,
                    "map keys must be plain names, not a YAML list or map");
      const std::string name = key.Scalar();
      const std::string childPath = joinPath(path, printableText(name));
      for (const SpecMapEntry &seen : out.entries)
        if (seen.key == name)
          return fail(error, keyLoc, childPath,
                      "duplicate key '" + printableText(name) +
                          "' (first at " + seen.keyLoc.str() + ")");
      SpecMapEntry entry;
      entry.key = name;
      entry.keyLoc = keyLoc;
      if (!convert(it->second, childPath, depth + 1, keyLoc, entry.value))
        return false;
      // yaml-cpp places an omitted value (`key:` and a newline) on the next
      // token; point at the key instead.
      if (entry.value.kind == SpecNode::Kind::Null &&
          entry.value.loc.line != keyLoc.line)
        entry.value.loc = keyLoc;
      out.entries.push_back(std::move(entry));
    }
    return true;
  }

  SourceLoc origin;
  int layer;
  SpecError &error;
  size_t nodes = 0;
};

/// The `^` line of a YAML error: adds a hint when the line is indented with
/// tabs, which YAML forbids and yaml-cpp reports obscurely.
std::string tabHint(const std::string &text, int line0) {
  std::istringstream lines(text);
  std::string line;
  for (int i = 0; std::getline(lines, line); ++i) {
    if (i < line0 - 1)
      continue;
    size_t indent = line.find_first_not_of(" \t");
    if (line.substr(0, indent).find('\t') != std::string::npos)
      return " (tabs are not allowed in YAML indentation; use spaces)";
    if (i >= line0)
      break;
  }
  return "";
}

/// Reads a whole spec file; `at` is where to report a failure.
bool readSpecFile(const std::string &path, const SourceLoc &at,
                  const std::string &key, std::string &text,
                  SpecError &error) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    return fail(error, at, key,
                "cannot open spec '" + path + "': no such file");
  if (fs::is_directory(status))
    return fail(error, at, key,
                "cannot read spec '" + path + "': it is a directory");
  if (!fs::is_regular_file(status))
    return fail(error, at, key,
                "cannot read spec '" + path + "': not a regular file");
  uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    return fail(error, at, key,
                "cannot read spec '" + path + "': larger than 16 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(error, at, key,
                "cannot open spec '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad())
    return fail(error, at, key, "cannot read spec '" + path + "'");
  text = buffer.str();
  return true;
}

/// Deep merge: maps merge key by key, anything else replaces.
void mergeInto(SpecNode &base, SpecNode &&derived) {
  if (base.kind != SpecNode::Kind::Map ||
      derived.kind != SpecNode::Kind::Map) {
    base = std::move(derived);
    return;
  }
  for (SpecMapEntry &entry : derived.entries) {
    if (SpecMapEntry *existing = findEntry(base, entry.key)) {
      existing->keyLoc = entry.keyLoc;
      mergeInto(existing->value, std::move(entry.value));
    } else {
      base.entries.push_back(std::move(entry));
    }
  }
  base.loc = derived.loc;
  base.layer = derived.layer;
}

/// Loads specs and the chains they extend.
class Loader {
public:
  explicit Loader(SpecError &error) : error(error) {}

  bool load(const std::string &path, const std::string *text, int layer,
            const SourceLoc *extendsAt, SpecNode &out) {
    const SourceLoc fileStart{path, 1, 1};
    const SourceLoc at = extendsAt ? *extendsAt : SourceLoc{path, 0, 0};
    const std::string atKey = extendsAt ? "extends" : "";

    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (ec)
      canonical = fs::absolute(path, ec).lexically_normal();
    for (size_t i = 0; i < chain.size(); ++i)
      if (chain[i] == canonical.string()) {
        std::string cycle;
        for (size_t j = i; j < names.size(); ++j)
          cycle += names[j] + " -> ";
        return fail(error, at, atKey, "cycle: " + cycle + path);
      }
    if (layer > kMaxExtendsDepth)
      return fail(error, at, atKey,
                  "extends chain longer than " +
                      std::to_string(kMaxExtendsDepth) + " specs");

    std::string fileText;
    if (!text) {
      if (!readSpecFile(path, at, atKey, fileText, error))
        return false;
      text = &fileText;
    }
    SpecNode tree;
    if (!parseYamlText(*text, fileStart, layer, tree, error))
      return false;
    if (tree.kind == SpecNode::Kind::Null)
      return fail(error, fileStart, "",
                  "the spec is empty; expected a map of keys (name:, "
                  "model:, training:, ...)");
    if (tree.kind != SpecNode::Kind::Map)
      return fail(error, tree.loc, "",
                  "the top level of a spec must be a map of keys (name:, "
                  "model:, training:, ...), not " + tree.describe());

    auto extendsIt =
        std::find_if(tree.entries.begin(), tree.entries.end(),
                     [](const SpecMapEntry &e) { return e.key == "extends"; });
    if (extendsIt == tree.entries.end()) {
      out = std::move(tree);
      return true;
    }
    const SpecNode &target = extendsIt->value;
    if (target.kind != SpecNode::Kind::Scalar || target.scalar.empty())
      return fail(error, target.loc, "extends",
                  "expected the file name of a base spec, got " +
                      target.describe());
    fs::path basePath = fs::path(target.scalar);
    if (basePath.is_relative())
      basePath = fs::path(path).parent_path() / basePath;
    const SourceLoc targetLoc = target.loc;

    chain.push_back(canonical.string());
    names.push_back(path);
    SpecNode base;
    bool ok = load(basePath.lexically_normal().string(), nullptr, layer + 1,
                   &targetLoc, base);
    chain.pop_back();
    names.pop_back();
    if (!ok)
      return false;

    tree.entries.erase(extendsIt);
    mergeInto(base, std::move(tree));
    out = std::move(base);
    return true;
  }

private:
  SpecError &error;
  std::vector<std::string> chain; ///< canonical paths being loaded
  std::vector<std::string> names; ///< the same, as written
};

} // namespace

const SpecNode *SpecNode::find(const std::string &key) const {
  for (const SpecMapEntry &entry : entries)
    if (entry.key == key)
      return &entry.value;
  return nullptr;
}

SpecNode *SpecNode::find(const std::string &key) {
  SpecMapEntry *entry = findEntry(*this, key);
  return entry ? &entry->value : nullptr;
}

std::string SpecNode::describe() const {
  switch (kind) {
  case Kind::Null:
    return "nothing (null)";
  case Kind::Map:
    return "a map";
  case Kind::Sequence:
    return "a list";
  case Kind::Scalar:
    return quoted ? "the string \"" + printableText(scalar) + "\""
                  : "'" + printableText(scalar) + "'";
  }
  return "?";
}

std::string printableText(const std::string &text, size_t maxLength) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= maxLength) {
      out += "...";
      break;
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool parseYamlText(const std::string &text, const SourceLoc &origin, int layer,
               SpecNode &out, SpecError &error) {
  Converter converter(origin, layer, error);
  try {
    std::vector<YAML::Node> docs = YAML::LoadAll(text);
    if (docs.empty()) {
      out = SpecNode();
      out.loc = origin;
      out.layer = layer;
      return true;
    }
    if (docs.size() > 1)
      return fail(error, converter.locOf(docs[1].Mark(), origin), "",
                  "a spec holds one YAML document; found a second one");
    return converter.convert(docs[0], "", 0, origin, out);
  } catch (const YAML::Exception &e) {
    SourceLoc loc = converter.locOf(e.mark, origin);
    const bool mentionsTabs = e.msg.find("tab") != std::string::npos;
    return fail(error, loc, "",
                "invalid YAML: " + e.msg +
                    (mentionsTabs ? "" : tabHint(text, loc.line - origin.line)));
  } catch (const std::exception &e) {
    return fail(error, origin, "", std::string("invalid YAML: ") + e.what());
  } catch (...) {
    return fail(error, origin, "", "invalid YAML");
  }
}

bool loadSpecTree(const std::string &path, const std::string *text,
                  SpecNode &root, SpecError &error) {
  try {
    Loader loader(error);
    return loader.load(path, text, /*layer=*/1, nullptr, root);
  } catch (const std::exception &e) {
    return fail(error, SourceLoc{path, 0, 0}, "",
                std::string("cannot load spec: ") + e.what());
  } catch (...) {
    return fail(error, SourceLoc{path, 0, 0}, "", "cannot load spec");
  }
}

bool applyOverride(SpecNode &root, const std::string &override,
                   SpecError &error) {
  const std::string file = "--set " + printableText(override, 200);
  const int keyCol = 7; // just after "--set "
  const size_t eq = override.find('=');
  if (eq == std::string::npos)
    return fail(error, SourceLoc{file, 1, keyCol}, "",
                "expected --set KEY=VALUE (e.g. --set training.steps=100)");

  // Split the dotted key, remembering where each part starts.
  const std::string dotted = override.substr(0, eq);
  std::vector<std::pair<std::string, int>> parts;
  for (size_t start = 0;;) {
    size_t dot = dotted.find('.', start);
    size_t end = dot == std::string::npos ? dotted.size() : dot;
    parts.emplace_back(dotted.substr(start, end - start),
                       keyCol + static_cast<int>(start));
    if (parts.back().first.empty())
      return fail(error, SourceLoc{file, 1, parts.back().second},
                  printableText(dotted), "empty key name in --set");
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  if (parts.front().first == "extends")
    return fail(error, SourceLoc{file, 1, keyCol}, "extends",
                "extends cannot be set with --set; write a spec that "
                "extends the other one");

  SpecNode *node = &root;
  std::string path;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const auto &[name, col] = parts[i];
    path = joinPath(path, name);
    SpecMapEntry *entry = findEntry(*node, name);
    if (!entry) {
      SpecMapEntry created;
      created.key = name;
      created.keyLoc = SourceLoc{file, 1, col};
      created.value.kind = SpecNode::Kind::Map;
      created.value.loc = created.keyLoc;
      created.value.layer = 0;
      node->entries.push_back(std::move(created));
      entry = &node->entries.back();
    } else if (entry->value.kind != SpecNode::Kind::Map) {
      return fail(error, SourceLoc{file, 1, col}, printableText(path),
                  "cannot set '" + printableText(dotted) + "': '" +
                      printableText(path) + "' is " +
                      entry->value.describe() + " (at " +
                      entry->value.loc.str() + "), not a map");
    }
    node = &entry->value;
  }

  SpecNode value;
  const SourceLoc valueOrigin{file, 1, keyCol + static_cast<int>(eq) + 1};
  if (!parseYamlText(override.substr(eq + 1), valueOrigin, /*layer=*/0, value,
                 error))
    return false;
  const auto &[name, col] = parts.back();
  const SourceLoc keyLoc{file, 1, col};
  if (value.kind == SpecNode::Kind::Null)
    value.loc = valueOrigin;
  if (SpecMapEntry *entry = findEntry(*node, name)) {
    entry->keyLoc = keyLoc;
    mergeInto(entry->value, std::move(value));
  } else {
    SpecMapEntry created;
    created.key = name;
    created.keyLoc = keyLoc;
    created.value = std::move(value);
    node->entries.push_back(std::move(created));
  }
  return true;
}

} // namespace gptc
