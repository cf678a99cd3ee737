//===- gptc.cpp - The gptc driver -----------------------------------------===//
//
//   gptc check SPEC [--set key=value]...
//   gptc compile SPEC --emit=STAGE [-o FILE] [--set key=value]...
//
// `check` validates a spec and prints a summary of the model it describes;
// `compile` runs the pipeline up to STAGE and prints (or writes) the IR.
//
//===----------------------------------------------------------------------===//

#include "dialects/GPT/GPTDialect.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parameters.h"
#include "frontend/SpecParser.h"
#include "runtime/TrainCommand.h"
#include "runtime/data/DataCommand.h"
#include "passes/Passes.h"
#include "tools/gptc/Compile.h"
#include "tools/gptc/Summary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>

using namespace llvm;

namespace {

cl::OptionCategory gptcCategory("gptc options");

cl::opt<std::string> specPath(cl::Positional, cl::desc("<spec.yaml>"),
                              cl::cat(gptcCategory));
cl::list<std::string> overrides(
    "set", cl::desc("Override a spec key, e.g. --set model.seq_len=16384 "
                    "(validated like the file)"),
    cl::value_desc("key=value"), cl::cat(gptcCategory));
using gptc::Stage;
/// --emit=ptx: past the last pipeline stage (CUDA only).
constexpr Stage kPTXStage = static_cast<Stage>(100);
cl::opt<Stage> emitStage(
    "emit", cl::desc("Print the IR after this stage (compile)"),
    cl::values(
        clEnumValN(Stage::GPT, "gpt",
                   "forward graph in gpt primitives + @update in optim ops, "
                   "as the frontend writes them"),
        clEnumValN(Stage::Grad, "grad", "+ @forward_grad (gptc-autodiff)"),
        clEnumValN(Stage::Step, "step",
                   "arena entry points, optimizer lowered to gpt"),
        clEnumValN(Stage::Linalg, "linalg",
                   "kernels as linalg on tensors, elementwise chains fused"),
        clEnumValN(Stage::Buffers, "buffers",
                   "bufferized; GEMMs as runtime calls"),
        clEnumValN(Stage::Loops, "loops", "kernels as scf.parallel nests"),
        clEnumValN(Stage::LLVM, "llvm",
                   "CPU: LLVM dialect; CUDA: kernels as gpu.launch"),
        clEnumValN(kPTXStage, "ptx",
                   "CUDA: PTX of every kernel for sm_80 and sm_90")),
    cl::cat(gptcCategory));
cl::opt<gptc::Target> target(
    "target", cl::desc("Code generation target"), cl::init(gptc::Target::CPU),
    cl::values(clEnumValN(gptc::Target::CPU, "cpu",
                          "the host CPU (OpenMP + BLAS), the default"),
               clEnumValN(gptc::Target::CUDA, "cuda",
                          "NVIDIA GPUs: the same kernels as gpu.launch, PTX")),
    cl::cat(gptcCategory));
cl::opt<std::string> outputPath("o",
                                cl::desc("With --emit: output file (default "
                                         "stdout); without: the bundle "
                                         "directory to write"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(gptcCategory));

const char *overview = R"(gptc: compile GPT training specs (YAML) with MLIR

Commands:
  gptc check SPEC                validate SPEC and print a summary of its model
  gptc compile SPEC --emit=STAGE print the IR after STAGE (see --emit below)
  gptc compile SPEC -o DIR       write the step bundle: manifest.json, step.so
  gptc data TEXT... -o DIR       write byte-level token shards (.bin) of text
                                 files (see gptc data --help)
  gptc train SPEC|DIR --data GLOB [--val GLOB] [--steps N] [--seed S]
                                 train a spec (compiled first) or a bundle on
                                 the CPU (see gptc train --help)

Stages (--emit), in pipeline order:
  gpt      forward graph in gpt primitives (+ @update in optim ops); every
           op is located at the YAML key that configured it (add
           --mlir-print-debuginfo to see locations)
  grad     + @forward_grad, the backward graph made by gptc-autodiff
  step     arena entry points; the optimizer lowered to gpt math
  linalg   kernels as linalg on tensors, elementwise chains fused
  buffers  bufferized, GEMMs as runtime calls
  loops    every kernel an scf.parallel nest
  llvm     CPU: LLVM dialect (OpenMP + loops); with --target=cuda: every
           kernel a gpu.launch (block- and thread-level loops)
  ptx      with --target=cuda: PTX of every kernel for sm_80 and sm_90
           (-o DIR writes one KERNEL.CHIP.ptx per kernel)
)";

/// Prints diagnostics as "file:line:col: error: message" (one line each).
void printDiagnostic(mlir::Diagnostic &diag) {
  mlir::Location loc = diag.getLocation();
  if (auto name = dyn_cast<mlir::NameLoc>(loc))
    loc = name.getChildLoc();
  std::string where;
  if (auto file = dyn_cast<mlir::FileLineColLoc>(loc))
    where = (file.getFilename().str() + ":" + Twine(file.getLine()) + ":" +
             Twine(file.getColumn()) + ": ")
                .str();
  errs() << where << "error: " << diag.str() << "\n";
}

int loadSpec(gptc::ModelSpec &spec) {
  if (specPath.empty()) {
    errs() << "gptc: error: no spec given (see gptc --help)\n";
    return 1;
  }
  gptc::SpecError error;
  if (!gptc::parseSpecFile(specPath, overrides, spec, error)) {
    errs() << error.str() << "\n";
    return 1;
  }
  return 0;
}

int runCheck() {
  gptc::ModelSpec spec;
  if (int rc = loadSpec(spec))
    return rc;
  gptc::printSummary(spec, outs());
  return 0;
}

/// --emit=ptx: every kernel's PTX, to stdout or as DIR/KERNEL.CHIP.ptx.
int writePTX(mlir::ModuleOp module) {
  std::vector<gptc::PTXKernel> kernels;
  if (!gptc::emitPTX(module, kernels))
    return 1;
  if (outputPath == "-") {
    for (const gptc::PTXKernel &k : kernels)
      outs() << "// ----- kernel " << k.name << " (" << k.chip << ")\n"
             << k.ptx << "\n";
    return 0;
  }
  if (std::error_code ec = sys::fs::create_directories(outputPath)) {
    errs() << "gptc: error: cannot create " << outputPath << ": "
           << ec.message() << "\n";
    return 1;
  }
  for (const gptc::PTXKernel &k : kernels) {
    std::string path = outputPath + "/" + k.name + "." + k.chip + ".ptx";
    std::error_code ec;
    raw_fd_ostream os(path, ec);
    if (ec) {
      errs() << "gptc: error: cannot write " << path << ": " << ec.message()
             << "\n";
      return 1;
    }
    os << k.ptx;
  }
  outs() << "wrote " << kernels.size() << " PTX files to " << outputPath
         << "\n";
  return 0;
}

int runCompile() {
  gptc::ModelSpec spec;
  if (int rc = loadSpec(spec))
    return rc;
  bool emit = emitStage.getNumOccurrences() > 0;
  if (!emit && outputPath == "-") {
    errs() << "gptc: error: give --emit=STAGE to print IR or -o DIR to write "
              "a bundle (see gptc --help)\n";
    return 1;
  }
  mlir::MLIRContext ctx;
  gptc::prepareContext(ctx);
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&ctx, [](mlir::Diagnostic &diag) {
    printDiagnostic(diag);
    return mlir::success();
  });
  bool ptx = emit && emitStage.getValue() == kPTXStage;
  if (ptx && target != gptc::Target::CUDA) {
    errs() << "gptc: error: --emit=ptx needs --target=cuda\n";
    return 1;
  }
  if (!emit && target == gptc::Target::CUDA) {
    errs() << "gptc: error: CUDA bundles are not supported yet; use "
              "--target=cuda --emit=ptx\n";
    return 1;
  }
  Stage stage = emit && !ptx ? emitStage.getValue() : Stage::LLVM;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      gptc::compileToStage(ctx, spec, stage, target);
  if (!module)
    return 1;
  if (ptx)
    return writePTX(*module);
  if (!emit) {
    std::string error;
    if (!gptc::writeBundle(*module, spec, specPath, overrides, outputPath,
                           error)) {
      errs() << "gptc: error: " << error << "\n";
      return 1;
    }
    outs() << "wrote " << outputPath << "/{manifest.json,step.so,spec.yaml}\n";
    return 0;
  }
  std::string errorMessage;
  auto out = mlir::openOutputFile(outputPath, &errorMessage);
  if (!out) {
    errs() << "gptc: error: " << errorMessage << "\n";
    return 1;
  }
  module->print(out->os(), mlir::OpPrintingFlags());
  out->keep();
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerAllPasses();
  gptc::registerGPTCPasses();

  // The first argument names the command; the rest are its options.
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "train") {
    std::vector<std::string> args(argv + 2, argv + argc);
    return gptc::runtime::runTrainCommand(args, std::cout, std::cerr,
                                          gptc::compileSpecToBundle);
  }
  if (command == "data") {
    std::vector<std::string> args(argv + 2, argv + argc);
    return gptc::data::runDataCommand(args, std::cout, std::cerr);
  }
  if (command == "check" || command == "compile") {
    std::string argv0 = std::string(argv[0]) + " " + command;
    std::vector<const char *> args = {argv0.c_str()};
    for (int i = 2; i < argc; ++i)
      args.push_back(argv[i]);
    cl::HideUnrelatedOptions({&gptcCategory});
    if (!cl::ParseCommandLineOptions(static_cast<int>(args.size()),
                                     args.data(), overview, &errs()))
      return 1;
    return command == "check" ? runCheck() : runCompile();
  }
  cl::ParseCommandLineOptions(argc, argv, overview);
  if (!command.empty() && command[0] != '-') {
    errs() << "gptc: error: unknown command '" << command
           << "' (expected check, compile, data or train; see gptc --help)\n";
    return 1;
  }
  errs() << "gptc: error: no command given (see gptc --help)\n";
  return 1;
}
