//===- SpecTree.cpp - YAML documents as located trees ---------------------===//
//
// yaml-cpp parse events -> SpecNode (1-based locations, duplicate keys,
// depth and size limits), file reading, `extends:` resolution with cycle
// detection, deep merge, and `--set` overrides. yaml-cpp reports errors by
// throwing; every exception is caught here and turned into a SpecError.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecTree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace gptc {

namespace {

/// Nesting deeper than this is an error (a spec needs 4 levels).
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

/// Builds a SpecNode tree from yaml-cpp's parse events. The event API (not
/// YAML::Load) keeps us in control: aliases are copied under a node budget
/// (no cycles, no exponential blow-up), nesting is bounded, and documents
/// are pulled one at a time (yaml-cpp 0.7's LoadAll loops forever on `,`).
/// Positions on yaml-cpp's (0-based) line 0 are shifted by `origin.col - 1`
/// so that a `--set` value reports its column inside the whole argument.
class TreeBuilder : public YAML::EventHandler {
public:
  /// Thrown from the event callbacks to stop the parser at a problem.
  struct Stop {
    SpecError error;
  };

  TreeBuilder(SourceLoc origin, int layer)
      : origin(std::move(origin)), layer(layer) {}

  SourceLoc locOf(const YAML::Mark &mark) const {
    if (mark.is_null() || mark.line < 0 || mark.column < 0)
      return origin;
    SourceLoc loc;
    loc.file = origin.file;
    loc.line = origin.line + mark.line;
    loc.col = (mark.line == 0 ? origin.col : 1) + mark.column;
    return loc;
  }

  bool hasRoot() const { return rootSet; }
  SpecNode takeRoot() { return std::move(root); }
  const YAML::Mark &documentMark() const { return docMark; }

  void OnDocumentStart(const YAML::Mark &mark) override { docMark = mark; }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark &mark, YAML::anchor_t anchor) override {
    add(leaf(SpecNode::Kind::Null, mark), anchor);
  }

  void OnAlias(const YAML::Mark &mark, YAML::anchor_t anchor) override {
    auto it = anchors.find(anchor);
    if (it == anchors.end())
      stop(locOf(mark), "an alias may only refer to a finished anchor");
    count(it->second.second, locOf(mark));
    SpecNode copy = it->second.first;
    copy.loc = locOf(mark);
    add(std::move(copy), 0);
  }

  void OnScalar(const YAML::Mark &mark, const std::string &tag,
                YAML::anchor_t anchor, const std::string &value) override {
    checkTag(mark, tag);
    SpecNode node = leaf(SpecNode::Kind::Scalar, mark);
    node.scalar = value;
    node.quoted = tag == "!";
    add(std::move(node), anchor);
  }

  void OnSequenceStart(const YAML::Mark &mark, const std::string &tag,
                       YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(SpecNode::Kind::Sequence, mark, tag, anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark &mark, const std::string &tag,
                  YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(SpecNode::Kind::Map, mark, tag, anchor);
  }
  void OnMapEnd() override { close(); }

private:
  /// A sequence or map being filled.
  struct Frame {
    SpecNode node;
    YAML::anchor_t anchor = 0;
    size_t firstNode = 0; ///< `nodes` when it opened: its subtree's size
    bool haveKey = false; ///< a map's key is waiting for its value
    SpecMapEntry pending;
  };

  /// `key`: the key at fault when it is not yet the pending one.
  [[noreturn]] void stop(const SourceLoc &loc, const std::string &message,
                         const std::string &key = "") {
    std::string path = currentPath();
    if (!key.empty())
      path = joinPath(path, printableText(key));
    throw Stop{SpecError{loc, path, message}};
  }

  void count(size_t n, const SourceLoc &loc) {
    nodes += n;
    if (nodes > kMaxNodes)
      stop(loc, "the spec is too large (more than " +
                    std::to_string(kMaxNodes) +
                    " YAML nodes once aliases are expanded)");
  }

  void checkTag(const YAML::Mark &mark, const std::string &tag) {
    if (!tag.empty() && tag != "?" && tag != "!")
      stop(locOf(mark), "explicit YAML tags ('" + printableText(tag) +
                            "') are not supported");
  }

  SpecNode leaf(SpecNode::Kind kind, const YAML::Mark &mark) {
    SpecNode node;
    node.kind = kind;
    node.loc = locOf(mark);
    node.layer = layer;
    count(1, node.loc);
    return node;
  }

  void open(SpecNode::Kind kind, const YAML::Mark &mark, const std::string &tag,
            YAML::anchor_t anchor) {
    checkTag(mark, tag);
    Frame frame;
    frame.firstNode = nodes;
    frame.node = leaf(kind, mark);
    frame.anchor = anchor;
    if (stack.size() >= static_cast<size_t>(kMaxDepth))
      stop(frame.node.loc,
           "YAML nested deeper than " + std::to_string(kMaxDepth) + " levels");
    stack.push_back(std::move(frame));
  }

  void close() {
    Frame frame = std::move(stack.back());
    stack.pop_back();
    if (frame.haveKey)
      stop(frame.pending.keyLoc, "map key without a value");
    // Remember the subtree size so that every alias copy is counted.
    if (frame.anchor)
      anchors[frame.anchor] = {frame.node, nodes - frame.firstNode};
    add(std::move(frame.node), 0);
  }

  void add(SpecNode &&node, YAML::anchor_t anchor) {
    if (anchor)
      anchors[anchor] = {node, 1};
    if (stack.empty()) {
      root = std::move(node);
      rootSet = true;
      return;
    }
    Frame &top = stack.back();
    if (top.node.kind == SpecNode::Kind::Sequence) {
      top.node.items.push_back(std::move(node));
      return;
    }
    if (!top.haveKey) {
      if (node.kind != SpecNode::Kind::Scalar)
        stop(node.loc, "map keys must be plain names, not " + node.describe());
      for (const SpecMapEntry &seen : top.node.entries)
        if (seen.key == node.scalar)
          stop(node.loc,
               "duplicate key '" + printableText(node.scalar) + "' (first at " +
                   seen.keyLoc.str() + ")",
               node.scalar);
      top.pending = SpecMapEntry();
      top.pending.key = node.scalar;
      top.pending.keyLoc = node.loc;
      top.haveKey = true;
      return;
    }
    // yaml-cpp places an omitted value (`key:` then a newline) on the next
    // token; point at the key instead.
    if (node.kind == SpecNode::Kind::Null &&
        node.loc.line != top.pending.keyLoc.line)
      node.loc = top.pending.keyLoc;
    top.pending.value = std::move(node);
    top.node.entries.push_back(std::move(top.pending));
    top.haveKey = false;
  }

  /// The dotted path of the key being built, for error messages.
  std::string currentPath() const {
    std::string path;
    for (const Frame &frame : stack)
      if (frame.node.kind == SpecNode::Kind::Map && frame.haveKey)
        path = joinPath(path, printableText(frame.pending.key));
    return path;
  }

  SourceLoc origin;
  int layer;
  std::vector<Frame> stack;
  std::map<YAML::anchor_t, std::pair<SpecNode, size_t>> anchors;
  size_t nodes = 0;
  SpecNode root;
  bool rootSet = false;
  YAML::Mark docMark;
};

/// A hint for a YAML error on (or just after) a line indented with tabs,
/// which YAML forbids and yaml-cpp reports obscurely ("illegal map value").
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
                  const std::string &key, std::string &text, SpecError &error) {
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels)
    return fail(error, at, key,
                "cannot open spec '" + path + "': a symbolic link loop");
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
  // YAML reads a lone CR as no line break at all, so a classic-Mac file
  // would fail with a baffling message on its first line.
  if (text.find('\r') != std::string::npos &&
      text.find('\n') == std::string::npos)
    return fail(error, at, key,
                "cannot read spec '" + path +
                    "': its lines end in CR alone (classic Mac line "
                    "endings); convert them to LF or CRLF");
  return true;
}

/// Deep merge: maps merge key by key, anything else replaces.
void mergeInto(SpecNode &base, SpecNode &&derived) {
  if (base.kind != SpecNode::Kind::Map || derived.kind != SpecNode::Kind::Map) {
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
                  "model:, training:, ...), not " +
                      tree.describe());

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
  TreeBuilder builder(origin, layer);
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    if (!parser.HandleNextDocument(builder) || !builder.hasRoot()) {
      out = SpecNode();
      out.loc = origin;
      out.layer = layer;
      return true;
    }
    const YAML::Mark first = builder.documentMark();
    out = builder.takeRoot();
    // Anything after the document: a second document, or a token yaml-cpp
    // could not place (it then reports it again and again: `,`).
    TreeBuilder rest(origin, layer);
    if (parser.HandleNextDocument(rest)) {
      const YAML::Mark &next = rest.documentMark();
      const SourceLoc loc = builder.locOf(next);
      const size_t pos = std::min<size_t>(std::max(next.pos, 0), text.size());
      const std::string token = text.substr(pos, 1);
      if (next.pos == first.pos || token == "," || token == "]" || token == "}")
        return fail(error, loc, "",
                    "invalid YAML: unexpected '" + printableText(token) + "'");
      return fail(error, loc, "",
                  "a spec holds one YAML document; found a second one");
    }
    return true;
  } catch (const TreeBuilder::Stop &stop) {
    error = stop.error;
    return false;
  } catch (const YAML::Exception &e) {
    SourceLoc loc = builder.locOf(e.mark);
    const bool mentionsTabs = e.msg.find("tab") != std::string::npos;
    return fail(
        error, loc, "",
        "invalid YAML: " + printableText(e.msg, 200) +
            (mentionsTabs ? "" : tabHint(text, loc.line - origin.line)));
  } catch (const std::exception &e) {
    return fail(error, origin, "",
                std::string("invalid YAML: ") + printableText(e.what(), 200));
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
                      printableText(path) + "' is " + entry->value.describe() +
                      " (at " + entry->value.loc.str() + "), not a map");
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

namespace {

std::string quotedScalar(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

/// A key as written: plain when it is a simple name.
std::string keyText(const std::string &key) {
  bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-' || c == '.';
  });
  return plain ? key : quotedScalar(key);
}

/// A node as a map value on its key's line (`inFlow` false) or inside a
/// flow list or map, where a plain scalar with a flow indicator is quoted.
std::string inlineNode(const SpecNode &node, bool inFlow = false) {
  switch (node.kind) {
  case SpecNode::Kind::Null:
    return "~";
  case SpecNode::Kind::Scalar:
    if (node.quoted ||
        (inFlow && node.scalar.find_first_of(",[]{}") != std::string::npos))
      return quotedScalar(node.scalar);
    return node.scalar;
  case SpecNode::Kind::Sequence: {
    std::string out = "[";
    for (size_t i = 0; i < node.items.size(); ++i)
      out += (i ? ", " : "") + inlineNode(node.items[i], true);
    return out + "]";
  }
  case SpecNode::Kind::Map: {
    std::string out = "{";
    for (size_t i = 0; i < node.entries.size(); ++i)
      out += (i ? ", " : "") + keyText(node.entries[i].key) + ": " +
             inlineNode(node.entries[i].value, true);
    return out + "}";
  }
  }
  return "~";
}

void renderMap(const SpecNode &map, const std::string &indent,
               std::string &out) {
  for (const SpecMapEntry &entry : map.entries) {
    out += indent + keyText(entry.key) + ":";
    if (entry.value.kind == SpecNode::Kind::Map &&
        !entry.value.entries.empty()) {
      out += "\n";
      renderMap(entry.value, indent + "  ", out);
    } else {
      out += " " + inlineNode(entry.value) + "\n";
    }
  }
}

} // namespace

std::string renderSpecYaml(const SpecNode &root) {
  if (root.kind != SpecNode::Kind::Map)
    return inlineNode(root) + "\n";
  std::string out;
  renderMap(root, "", out);
  return out;
}

} // namespace gptc
