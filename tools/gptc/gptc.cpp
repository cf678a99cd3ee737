//===- gptc.cpp - The gptc tool -------------------------------------------===//
//
// `gptc COMMAND ARGS...`: the commands are one table (commands/
// CommandTable.h): check and compile run the compiler (driver/
// CompileCommand.h); train, sample, plot and data run bundles and data
// (commands/).
//
//===----------------------------------------------------------------------===//

#include "commands/CommandTable.h"
#include "commands/DataCommand.h"
#include "commands/PlotCommand.h"
#include "commands/SampleCommand.h"
#include "commands/TrainCommand.h"
#include "driver/Compile.h"
#include "driver/CompileCommand.h"

#include "llvm/Support/InitLLVM.h"

#include <iostream>

namespace {

using Args = std::vector<std::string>;

int runTrain(const Args &args, const std::string &) {
  auto compile = [](const std::string &spec, const Args &overrides, bool noFuse,
                    const std::string &outDir, std::string &error) {
    return gptc::compileSpecToBundle(spec, overrides, outDir, error, !noFuse);
  };
  auto plan = [](const std::string &spec, const Args &overrides, bool noFuse,
                 std::string &key, int64_t &ranks, std::string &error) {
    return gptc::planSpecBundle(spec, overrides, !noFuse, key, ranks, error);
  };
  return gptc::runtime::runTrainCommand(args, std::cout, std::cerr, compile,
                                        plan);
}

const std::vector<gptc::cli::Command> kCommands = {
    {"check",
     "  gptc check SPEC                validate SPEC and print a "
     "summary of its model\n",
     gptc::runCheckCommand},
    {"compile",
     R"(  gptc compile SPEC --emit=STAGE print the IR after STAGE (see --emit below)
  gptc compile SPEC -o DIR       write the step bundle: manifest.json, step.so
  gptc compile SPEC --stats [--target=cuda]
                                 print the step's kernels with their launch
                                 shapes (CUDA: grid, block and, with ptxas,
                                 registers and spills for sm_80 and sm_90)
                                 and its GEMM calls, with totals; CUDA: an
                                 H100 cost estimate (occupancy, FLOPs,
                                 bytes, roofline time, MFU of the step)
)",
     gptc::runCompileCommand},
    {"data",
     R"(  gptc data TEXT... -o DIR       write byte-level token shards (.bin) of text
                                 files (see gptc data --help)
)",
     [](const Args &args, const std::string &) {
       return gptc::data::runDataCommand(args, std::cout, std::cerr);
     }},
    {"plot", R"(  gptc plot LOG.jsonl -o loss.png
                                 draw the losses of a gptc train --log file
)",
     [](const Args &args, const std::string &) {
       return gptc::runtime::runPlotCommand(args, std::cout, std::cerr);
     }},
    {"sample",
     R"(  gptc sample CHECKPOINT --prompt TEXT [--tokens N] [--temperature T]
                                 generate text from a trained checkpoint
)",
     [](const Args &args, const std::string &) {
       return gptc::runtime::runSampleCommand(args, std::cout, std::cerr);
     }},
    {"train",
     R"(  gptc train SPEC|DIR --data GLOB [--val GLOB] [--steps N] [--seed S]
                                 train a spec (compiled first) or a bundle on
                                 the CPU (see gptc train --help)
)",
     runTrain},
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  gptc::registerCompileOptions();
  std::string overview =
      "gptc: compile GPT training specs (YAML) with MLIR\n\n" +
      gptc::cli::commandsHelp(kCommands) + "\n" + gptc::compileOptionsHelp();
  std::string name = argc > 1 ? argv[1] : "";
  if (const gptc::cli::Command *command =
          gptc::cli::findCommand(kCommands, name))
    return command->run(Args(argv + 2, argv + argc), overview);
  if (!name.empty() && name[0] != '-') {
    gptc::cli::reportUnknownCommand(kCommands, name, std::cerr);
    return 1;
  }
  return gptc::printGeneralHelp(argc, argv, overview);
}
