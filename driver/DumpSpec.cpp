//===- DumpSpec.cpp - The spec an --emit dump was made from ---------------===//

#include "driver/DumpSpec.h"

#include "driver/Compile.h"
#include "runtime/Sha256.h"

#include "llvm/ADT/SmallVector.h"

#include <map>
#include <vector>

namespace gptc {
namespace {

/// "path.to.key" -> value for every `key: value` line of a block-style
/// YAML text (indentation nests the keys; list items are numbered).
std::map<std::string, std::string> flatten(llvm::StringRef yaml) {
  std::map<std::string, std::string> keys;
  std::vector<std::pair<size_t, std::string>> parents; // indent, path
  std::map<std::string, int> items;
  llvm::SmallVector<llvm::StringRef> lines;
  yaml.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    llvm::StringRef text = line.ltrim();
    if (text.empty() || text.starts_with("#"))
      continue;
    size_t indent = line.size() - text.size();
    while (!parents.empty() && parents.back().first >= indent)
      parents.pop_back();
    std::string prefix = parents.empty() ? "" : parents.back().second + ".";
    if (text.consume_front("- ")) {
      // A list item: numbered under its parent, its keys nested deeper.
      std::string parent = parents.empty() ? "" : parents.back().second;
      prefix = parent + "." + std::to_string(items[parent]++) + ".";
      indent += 2;
      parents.push_back({indent - 1, prefix.substr(0, prefix.size() - 1)});
    }
    auto [key, value] = text.split(':');
    key = key.trim();
    value = value.trim();
    if (value.empty())
      parents.push_back({indent, prefix + key.str()});
    else
      keys[prefix + key.str()] = value.str();
  }
  return keys;
}

} // namespace

std::string specDigest(llvm::StringRef resolvedYaml) {
  return sha256Hex(resolvedYaml.data(), resolvedYaml.size()).substr(0, 16);
}

std::string embeddedSpecOf(llvm::StringRef dump) {
  std::string text;
  llvm::SmallVector<llvm::StringRef> lines;
  dump.split(lines, '\n');
  for (llvm::StringRef line : lines)
    if (line.consume_front(kEmbeddedSpecPrefix))
      text += line.str() + "\n";
  return text;
}

std::string firstSpecDifference(llvm::StringRef dumped, llvm::StringRef here) {
  std::map<std::string, std::string> a = flatten(dumped), b = flatten(here);
  for (const auto &[key, value] : b) {
    auto it = a.find(key);
    if (it == a.end())
      return key + ": not in the dump, " + value + " here";
    if (it->second != value)
      return key + ": " + it->second + " in the dump, " + value + " here";
  }
  for (const auto &[key, value] : a)
    if (!b.count(key))
      return key + ": " + value + " in the dump, not here";
  return "";
}

} // namespace gptc
