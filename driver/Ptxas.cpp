//===- Ptxas.cpp - ptxas -v of PTX text ----------------------------------===//
//
// See Ptxas.h.
//
//===----------------------------------------------------------------------===//

#include "driver/Ptxas.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;

namespace gptc {

std::string findCudaTool(StringRef name) {
  auto inToolkit = [&](StringRef root) -> std::string {
    SmallString<256> p(root);
    llvm::sys::path::append(p, "bin", name);
    return llvm::sys::fs::can_execute(p) ? std::string(p) : std::string();
  };
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      if (std::string p = inToolkit(value); !p.empty())
        return p;
  for (const char *root : {GPTC_CUDA_TOOLKIT_DIR, "/usr/local/cuda"})
    if (std::string p = inToolkit(root); !p.empty())
      return p;
  if (auto onPath = llvm::sys::findProgramByName(name))
    return *onPath;
  return "";
}

std::optional<std::string>
runCudaTool(StringRef program, llvm::ArrayRef<StringRef> args, StringRef log) {
  std::optional<StringRef> redirects[] = {StringRef(""), log, log};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &message);
  if (rc == 0)
    return std::nullopt;
  auto buffer = llvm::MemoryBuffer::getFile(log);
  StringRef out = buffer ? (*buffer)->getBuffer().rtrim() : StringRef();
  StringRef last = out.rsplit('\n').second;
  std::string why = (last.empty() ? out : last).trim().str();
  if (!why.empty())
    return why;
  return message.empty() ? "exit code " + std::to_string(rc) : message;
}

PTXASInfo runPTXAS(StringRef ptxas, StringRef chip, StringRef ptx,
                   StringRef dir, StringRef stem, StringRef cubin) {
  PTXASInfo info;
  auto path = [&](StringRef ext) {
    SmallString<128> p(dir);
    llvm::sys::path::append(p, stem + ext);
    return std::string(p);
  };
  std::string input = path(".ptx"), log = path(".log");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    if (ec) {
      info.error = "cannot write " + input + ": " + ec.message();
      return info;
    }
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {
      ptxas, "-v", arch, input, "-o", cubin.empty() ? "/dev/null" : cubin};
  if (std::optional<std::string> failed = runCudaTool(ptxas, args, log)) {
    info.error = *failed;
    return info;
  }
  auto buffer = llvm::MemoryBuffer::getFile(log);
  StringRef out = buffer ? (*buffer)->getBuffer() : StringRef();
  // One entry function per PTX: "Used N registers" and "S bytes spill
  // stores, L bytes spill loads".
  SmallVector<StringRef> groups;
  llvm::Regex regs("Used ([0-9]+) registers");
  llvm::Regex spills("([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
  llvm::Regex smem("([0-9]+) bytes smem");
  llvm::Regex stack("([0-9]+) bytes stack frame");
  info.registers = regs.match(out, &groups) ? std::stoll(groups[1].str()) : 0;
  info.spillBytes = spills.match(out, &groups) ? std::stoll(groups[1].str()) +
                                                     std::stoll(groups[2].str())
                                               : 0;
  info.sharedBytes = smem.match(out, &groups) ? std::stoll(groups[1].str()) : 0;
  info.stackBytes = stack.match(out, &groups) ? std::stoll(groups[1].str()) : 0;
  return info;
}

} // namespace gptc
