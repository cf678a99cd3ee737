//===- gptc-spec-doc.cpp - Print the spec schema as Markdown --------------===//
//
//   gptc-spec-doc                   print the schema table
//   gptc-spec-doc --update FILE     replace the table between FILE's
//                                   <!-- BEGIN SCHEMA --> and
//                                   <!-- END SCHEMA --> markers
//
// models/README.md embeds the table; a unit test fails when they differ.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecSchema.h"

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {

constexpr const char *kBegin = "<!-- BEGIN SCHEMA -->";
constexpr const char *kEnd = "<!-- END SCHEMA -->";

int updateFile(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << path << ": error: cannot open\n";
    return 1;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  size_t begin = text.find(kBegin);
  size_t end = text.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    std::cerr << path << ": error: missing " << kBegin << " ... " << kEnd
              << " markers\n";
    return 1;
  }
  begin += std::string(kBegin).size();
  text.replace(begin, end - begin, "\n" + gptc::renderSchemaMarkdown());
  std::ofstream out(path);
  out << text;
  if (!out) {
    std::cerr << path << ": error: cannot write\n";
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 1) {
    std::cout << gptc::renderSchemaMarkdown();
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "--update")
    return updateFile(argv[2]);
  std::cerr << "usage: gptc-spec-doc [--update models/README.md]\n";
  return 1;
}
