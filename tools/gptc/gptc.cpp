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
#include "runtime/data/DataCommand.h"
#include "tools/gptc/Summary.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>

using namespace llvm;

namespace {

enum class Stage { GPT };

cl::OptionCategory gptcCategory("gptc options");

cl::opt<std::string> specPath(cl::Positional, cl::desc("<spec.yaml>"),
                              cl::cat(gptcCategory));
cl::list<std::string> overrides(
    "set", cl::desc("Override a spec key, e.g. --set model.seq_len=16384 "
                    "(validated like the file)"),
    cl::value_desc("key=value"), cl::cat(gptcCategory));
cl::opt<Stage> emitStage(
    "emit", cl::desc("The stage to print (compile)"), cl::init(Stage::GPT),
    cl::values(clEnumValN(Stage::GPT, "gpt",
                          "forward graph in gpt primitives, as the frontend "
                          "writes it (attention and norms as the math)")),
    cl::cat(gptcCategory));
cl::opt<std::string> outputPath("o", cl::desc("Output file (default stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(gptcCategory));

const char *overview = R"(gptc: compile GPT training specs (YAML) with MLIR

Commands:
  gptc check SPEC      validate SPEC and print a summary of its model
  gptc compile SPEC    lower SPEC and print the IR of the stage --emit names
  gptc data TEXT... -o DIR
                       write byte-level token shards (.bin) of text files
                       (see gptc data --help)

Stages (--emit):
  gpt                  the forward graph in gpt primitives; every op is
                       located at the YAML key that configured it
                       (add --mlir-print-debuginfo to see locations)
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

int runCompile() {
  gptc::ModelSpec spec;
  if (int rc = loadSpec(spec))
    return rc;
  mlir::MLIRContext ctx;
  ctx.printOpOnDiagnostic(false);
  mlir::ScopedDiagnosticHandler handler(&ctx, [](mlir::Diagnostic &diag) {
    printDiagnostic(diag);
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      gptc::buildForwardModule(ctx, spec);
  if (!module)
    return 1;
  std::string errorMessage;
  auto out = mlir::openOutputFile(outputPath, &errorMessage);
  if (!out) {
    errs() << "gptc: error: " << errorMessage << "\n";
    return 1;
  }
  mlir::OpPrintingFlags flags;
  module->print(out->os(), flags);
  out->keep();
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();

  // The first argument names the command; the rest are its options.
  std::string command = argc > 1 ? argv[1] : "";
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
           << "' (expected check, compile or data; see gptc --help)\n";
    return 1;
  }
  errs() << "gptc: error: no command given (see gptc --help)\n";
  return 1;
}
