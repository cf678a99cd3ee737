//===- CompileCommand.h - gptc check and gptc compile -----------*- C++ -*-===//
//
// The two commands of gptc that run the compiler: `check` (validate a spec,
// print a summary of its model) and `compile` (IR at a stage, --stats, or a
// bundle). Their options are llvm::cl options, registered once by
// registerCompileOptions() with the MLIR ones worth showing.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_COMPILECOMMAND_H
#define GPTC_DRIVER_COMPILECOMMAND_H

#include <string>
#include <vector>

namespace gptc {

/// Registers gptc's passes and the MLIR command-line options, and hides
/// the LLVM and MLIR options --help should not list. Call once, first.
void registerCompileOptions();

/// The --help text after the command list: the spec overrides and the
/// stages of --emit (from the stage table, passes/Pipeline.h).
std::string compileOptionsHelp();

/// Its lines in `gptc --help`'s Commands section.
extern const char kCheckHelp[];

/// Its lines in `gptc --help`'s Commands section.
extern const char kCompileHelp[];

/// `gptc check ARGS...` and `gptc compile ARGS...`; OVERVIEW is the --help
/// text. Each returns the process's exit code.
int runCheckCommand(const std::vector<std::string> &args,
                    const std::string &overview);
int runCompileCommand(const std::vector<std::string> &args,
                      const std::string &overview);

/// `gptc` with no command (or only options such as --help): prints the
/// help when asked, else an error; returns the exit code.
int printGeneralHelp(int argc, char **argv, const std::string &overview);

} // namespace gptc

#endif // GPTC_DRIVER_COMPILECOMMAND_H
