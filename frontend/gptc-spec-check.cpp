//===- gptc-spec-check.cpp - `gptc check` without MLIR --------------------===//
//
//   gptc-spec-check check SPEC [--set KEY=VALUE]... [--dtype DTYPE]
//
// Parses and checks SPEC exactly as `gptc check` does (the same GPTCSpec
// code, the same one-line errors) and prints `ok` instead of the summary.
// It links no MLIR, so the sanitizer job (scripts/sanitize.sh) builds it in
// seconds and runs the spec-error tests (test/Frontend/errors/) through it:
// lit's `gptc_spec_check` parameter points `gptc` at this tool.
//
//===----------------------------------------------------------------------===//

#include "frontend/SpecParser.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] != "check") {
    std::cerr << "usage: gptc-spec-check check SPEC [--set KEY=VALUE]... "
                 "[--dtype DTYPE]\n";
    return 2;
  }
  std::string spec;
  std::vector<std::string> overrides;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](const std::string &flag, std::string &out) {
      if (a == flag && i + 1 < args.size()) {
        out = args[++i];
        return true;
      }
      if (a.rfind(flag + "=", 0) == 0) {
        out = a.substr(flag.size() + 1);
        return true;
      }
      return false;
    };
    std::string v;
    if (value("--set", v))
      overrides.push_back(v);
    else if (value("--dtype", v))
      overrides.push_back("training.dtype=" + v);
    else if (spec.empty() && !a.empty() && a[0] != '-')
      spec = a;
    else {
      std::cerr << "gptc-spec-check: error: unexpected argument '" << a
                << "'\n";
      return 2;
    }
  }
  gptc::ModelSpec out;
  gptc::SpecError error;
  if (!gptc::parseSpecFile(spec, overrides, out, error)) {
    std::cerr << error.str() << "\n";
    return 1;
  }
  std::cout << "ok\n";
  return 0;
}
