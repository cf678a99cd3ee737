//===- SpecTree.h - YAML documents as located trees -------------*- C++ -*-===//
//
// Internal to the spec parser. yaml-cpp's nodes are converted into SpecNode,
// a small tree that keeps a 1-based file:line:col for every key and value
// and whether a scalar was quoted. The loader resolves `extends:` chains
// (deep merge: maps merge, scalars and lists replace) and applies `--set`
// overrides. Every failure is a SpecError; nothing here throws.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_FRONTEND_SPECTREE_H
#define GPTC_FRONTEND_SPECTREE_H

#include "frontend/SpecParser.h"

#include <string>
#include <vector>

namespace gptc {

struct SpecMapEntry;

/// One YAML node with its location.
struct SpecNode {
  enum class Kind { Null, Scalar, Sequence, Map };
  Kind kind = Kind::Null;
  std::string scalar;  ///< Scalar text
  bool quoted = false; ///< a quoted or block scalar: always a string
  SourceLoc loc;
  /// How far from the user the node was written: 0 = `--set`, 1 = the spec
  /// named on the command line, 2 = the spec it extends, ...
  int layer = 1;
  std::vector<SpecNode> items;       ///< Sequence
  std::vector<SpecMapEntry> entries; ///< Map, in file order

  const SpecNode *find(const std::string &key) const;
  SpecNode *find(const std::string &key);
  /// "a map", "a list", "nothing (null)", "the string \"5\"", "'abc'".
  std::string describe() const;
};

struct SpecMapEntry {
  std::string key;
  SourceLoc keyLoc;
  SpecNode value;
};

/// `text` made safe for a one-line message: control and non-ASCII bytes
/// escaped as \xNN, newlines as \n, cut to `maxLength` characters with "...".
std::string printableText(const std::string &text, size_t maxLength = 40);

/// Parses one YAML document of `text`, every node tagged with `layer`;
/// positions are relative to `origin` (see SourceLoc). An empty document
/// gives a Null node.
bool parseYamlText(const std::string &text, const SourceLoc &origin, int layer,
                   SpecNode &out, SpecError &error);

/// Loads the spec at `path` (or, when `text` is non-null, that text under
/// the name `path`) and every spec it extends, merged into `root`.
bool loadSpecTree(const std::string &path, const std::string *text,
                  SpecNode &root, SpecError &error);

/// Applies one `--set dotted.key=value` override to `root`. The value is
/// parsed as YAML (a scalar or a flow list/map); locations are given as
/// `--set dotted.key=value:1:COL`.
bool applyOverride(SpecNode &root, const std::string &override,
                   SpecError &error);

/// `root` written back as a YAML document that parses to the same tree:
/// maps in block style in their order, lists in flow style, quoted scalars
/// double-quoted, plain ones as written, nulls as `~`. Locations are not
/// kept.
std::string renderSpecYaml(const SpecNode &root);

} // namespace gptc

#endif // GPTC_FRONTEND_SPECTREE_H
