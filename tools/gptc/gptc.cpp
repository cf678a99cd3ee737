//===- gptc.cpp - The gptc tool -------------------------------------------===//
//
// `gptc COMMAND ARGS...` over one table of commands (commands/CommandTable.h):
// check and compile (driver/), all the others (commands/).
//
//===----------------------------------------------------------------------===//

#include "commands/ArgumentHabits.h"
#include "commands/CacheCommand.h"
#include "commands/CommandTable.h"
#include "commands/DataCommand.h"
#include "commands/ExportCommand.h"
#include "commands/PlotCommand.h"
#include "commands/SampleCommand.h"
#include "commands/TrainCommand.h"
#include "driver/Compile.h"
#include "driver/CompileCommand.h"
#include "driver/PhaseTimes.h"
#include "llvm/Support/InitLLVM.h"

#include <iostream>
#include <optional>
#include <vector>

namespace {
using Args = std::vector<std::string>;

int runTrain(const Args &args, const std::string &) {
  using gptc::commands::CompileFlags;
  auto compile = [](const std::string &spec, const Args &overrides,
                    const CompileFlags &flags, const std::string &outDir,
                    gptc::runtime::ErrorLine &error) {
    gptc::Target target;
    if (!gptc::parseTargetName(flags.target, target, error))
      return false;
    // A long compile says where it is (R15's takes minutes).
    gptc::PhaseTimes times;
    times.sayAsItGoes(llvm::errs(), "gptc train: compile: ", 2.0);
    gptc::BundleOptions options;
    options.times = &times;
    return gptc::compileSpecToBundle(spec, overrides, outDir, error,
                                     !flags.noFuse, target, options);
  };
  auto plan = [](const std::string &spec, const Args &overrides,
                 const CompileFlags &flags, gptc::commands::SpecPlan &out,
                 gptc::runtime::ErrorLine &error) {
    gptc::Target target;
    if (!gptc::parseTargetName(flags.target, target, error))
      return false;
    return gptc::planSpecBundle(spec, overrides, !flags.noFuse, target, out.key,
                                out.ranks, out.batch, out.deviceBatch, error);
  };
  return gptc::commands::runTrainCommand(args, std::cout, std::cerr, compile,
                                         plan);
}

const std::vector<gptc::cli::Command> kCommands = {
    gptc::commands::kCacheCommand,
    {"check", gptc::kCheckHelp, gptc::runCheckCommand, /*compiler=*/true},
    {"compile", gptc::kCompileHelp, gptc::runCompileCommand,
     /*compiler=*/true},
    {"data", gptc::commands::kDataHelp,
     gptc::cli::withStdStreams<gptc::commands::runDataCommand>},
    {"export", gptc::commands::kExportHelp, gptc::commands::runExport},
    {"plot", gptc::commands::kPlotHelp,
     gptc::cli::withStdStreams<gptc::commands::runPlotCommand>},
    {"sample", gptc::commands::kSampleHelp,
     gptc::cli::withStdStreams<gptc::commands::runSampleCommand>},
    {"train", gptc::commands::kTrainHelp, runTrain},
};

} // namespace

int main(int argc, char **argv) {
  gptc::cli::ignoreFileSizeSignal();
  std::vector<char *> helpArgv;
  gptc::cli::helpAsFlag(argc, argv, helpArgv);
  std::string name = argc > 1 ? argv[1] : "";
  const gptc::cli::Command *command = gptc::cli::findCommand(kCommands, name);
  // LLVM's crash handlers for the compiler; the others keep the defaults.
  std::optional<llvm::InitLLVM> init;
  if (!command || command->compiler)
    init.emplace(argc, argv);
  gptc::registerCompileOptions();
  std::string overview =
      "gptc: compile GPT training specs (YAML) with MLIR\n\n" +
      gptc::cli::commandsHelp(kCommands) + "\n" + gptc::compileOptionsHelp();
  if (command) {
    Args args(argv + 2, argv + argc);
    if (!gptc::cli::normalizeArguments(command->name, args, std::cerr))
      return 1;
    return command->run(args, overview);
  }
  if (!name.empty() && name[0] != '-') {
    gptc::cli::reportUnknownCommand(kCommands, name, std::cerr);
    return 1;
  }
  return gptc::printGeneralHelp(argc, argv, overview);
}
