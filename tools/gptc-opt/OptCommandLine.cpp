//===- OptCommandLine.cpp - gptc-opt's options, errors in one line --------===//

#include "tools/gptc-opt/OptCommandLine.h"

#include "driver/OptionErrors.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace gptc {

bool parseOptCommandLine(int argc, char **argv, mlir::DialectRegistry &registry,
                         std::string &input, std::string &output) {
  // The same two options MlirOptMain's parseCLIOptions makes.
  static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                              llvm::cl::desc("<input file>"),
                                              llvm::cl::init("-"));
  static llvm::cl::opt<std::string> outputFile(
      "o", llvm::cl::desc("Output filename"), llvm::cl::value_desc("filename"),
      llvm::cl::init("-"));
  std::string header =
      mlir::registerCLIOptions("gptc optimizer driver", registry);
  std::string llvmText;
  llvm::raw_string_ostream llvmErrors(llvmText);
  if (!llvm::cl::ParseCommandLineOptions(argc, argv, header, &llvmErrors)) {
    std::vector<std::string> args(argv + 1, argv + argc);
    llvm::errs() << "gptc-opt: error: "
                 << oneLineOptionError("gptc-opt", llvmText, args, "input file")
                 << "\n";
    return false;
  }
  input = inputFile;
  output = outputFile;
  return true;
}

} // namespace gptc
