//===- KeepDumpHeader.cpp - gptc-opt keeps a gptc dump's header -----------===//

#include "tools/gptc-opt/KeepDumpHeader.h"

#include "passes/Pipeline.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace gptc {
namespace {

/// The embedded spec's line prefix (kEmbeddedSpecPrefix, driver/Compile.h:
/// gptc-opt does not link the driver).
constexpr llvm::StringLiteral kSpecPrefix = "//| ";

/// What a dump carries around its IR.
struct DumpCarry {
  std::string header;                 ///< "// gptc compile --emit=..."
  std::vector<std::string> specLines; ///< "//| ..." lines
};

bool readDumpCarry(const std::string &path, DumpCarry &carry) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return false;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  if (lines.empty() || !lines[0].starts_with("// gptc compile --emit="))
    return false;
  carry.header = lines[0].str();
  for (llvm::StringRef line : lines)
    if (line.starts_with(kSpecPrefix))
      carry.specLines.push_back(line.str());
  return true;
}

/// The stage a --gptc-pipeline in `args` stops after, if there is one.
std::optional<std::string> pipelineStop(const std::vector<std::string> &args) {
  std::optional<std::string> stop;
  static const std::regex stopAfter(R"(stop-after=([a-z0-9]+))");
  for (const std::string &arg : args) {
    if (arg.find("gptc-pipeline") == std::string::npos)
      continue;
    std::smatch m;
    stop = std::regex_search(arg, m, stopAfter) ? m[1].str()
                                                : stageName(Stage::LLVM);
  }
  return stop;
}

} // namespace

int runKeepingDumpHeader(
    int argc, char **argv, const std::string &input, const std::string &output,
    const std::function<int(const std::string &, const std::string &)>
        &optMain) {
  DumpCarry carry;
  if (input == "-" || !readDumpCarry(input, carry))
    return optMain(input, output);
  if (std::optional<std::string> stop =
          pipelineStop(std::vector<std::string>(argv, argv + argc)))
    carry.header = std::regex_replace(
        carry.header, std::regex(R"(--emit=[a-z0-9]+)"), "--emit=" + *stop);

  llvm::SmallString<128> temporary;
  if (llvm::sys::fs::createTemporaryFile("gptc-opt", "mlir", temporary)) {
    llvm::errs() << "gptc-opt: error: cannot create a temporary file\n";
    return 1;
  }
  int rc = optMain(input, temporary.str().str());
  auto ir = llvm::MemoryBuffer::getFile(temporary);
  llvm::sys::fs::remove(temporary);
  if (rc != 0 || !ir)
    return rc != 0 ? rc : 1;
  std::error_code ec;
  llvm::raw_fd_ostream out(output, ec);
  if (ec) {
    llvm::errs() << "gptc-opt: error: " << output << ": " << ec.message()
                 << "\n";
    return 1;
  }
  out << carry.header << "\n" << (*ir)->getBuffer();
  if (!carry.specLines.empty()) {
    out << "\n// The resolved spec (gptc compile THIS_FILE -o DIR reads it):\n";
    for (const std::string &line : carry.specLines)
      out << line << "\n";
  }
  return 0;
}

} // namespace gptc
