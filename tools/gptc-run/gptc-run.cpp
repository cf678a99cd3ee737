//===- gptc-run.cpp - CUDA bundles without the compiler -------------------===//
//
// `gptc-run train|sample|plot ...`: gptc's train, sample and plot commands
// over compiled CUDA bundles, built without the compiler (no libMLIR or
// libLLVM: LLVM's Support library is linked in), without OpenBLAS and
// without MPI (one rank). It is what travels to a machine that cannot build
// gptc (scripts/gpu-pack.sh); a spec, a CPU bundle or several ranks need
// gptc itself.
//
//===----------------------------------------------------------------------===//

#include "commands/ArgumentHabits.h"
#include "commands/CommandTable.h"
#include "commands/PlotCommand.h"
#include "commands/SampleCommand.h"
#include "commands/TrainCommand.h"

#include <iostream>

namespace {

using Args = std::vector<std::string>;

/// gptc train over a bundle directory: no compile hook, so a spec is
/// refused with one line.
int runTrain(const Args &args, const std::string &) {
  return gptc::commands::runTrainCommand(args, std::cout, std::cerr, nullptr);
}

const std::vector<gptc::cli::Command> kCommands = {
    {"plot", gptc::commands::kPlotHelp,
     gptc::cli::withStdStreams<gptc::commands::runPlotCommand>},
    {"sample", gptc::commands::kSampleHelp,
     gptc::cli::withStdStreams<gptc::commands::runSampleCommand>},
    {"train", gptc::commands::kTrainHelp, runTrain},
};

} // namespace

int main(int argc, char **argv) {
  gptc::cli::ignoreFileSizeSignal();
  std::string name = argc > 1 ? argv[1] : "";
  if (const gptc::cli::Command *command =
          gptc::cli::findCommand(kCommands, name)) {
    Args args(argv + 2, argv + argc);
    if (!gptc::cli::normalizeArguments(command->name, args, std::cerr))
      return 1;
    return command->run(args, "");
  }
  if (!name.empty() && name != "--help" && name != "-h") {
    gptc::cli::reportUnknownCommand(kCommands, name, std::cerr);
    return 1;
  }
  std::cout << "gptc-run: train, sample and plot over compiled CUDA bundles, "
               "without the compiler (gptc-run train BUNDLE_DIR ...)\n\n"
            << gptc::cli::commandsHelp(kCommands);
  return name.empty() ? 1 : 0;
}
