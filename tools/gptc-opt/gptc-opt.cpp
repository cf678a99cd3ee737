//===- gptc-opt.cpp - mlir-opt with gptc's dialects and passes ------------===//

#include "dialects/InitAllDialects.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"
#include "tools/gptc-opt/KeepDumpHeader.h"
#include "tools/gptc-opt/OptCommandLine.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include "generated/GPTCVersion.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  // The same extensions gptc registers (driver/Compile.cpp): the func
  // inliner interface among them, without which the pipeline's inliner
  // leaves every call in place.
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  gptc::registerAllDialects(registry);
  gptc::registerGPTCPasses();
  gptc::registerGPTCPipeline();
  // gptc-opt --version: gptc's version, as gptc --version says it.
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "gptc-opt (gptc " GPTC_VERSION ", commit " GPTC_COMMIT ")\n"
       << "  LLVM and MLIR " LLVM_VERSION_STRING "\n";
  });
  std::string input, output;
  if (!gptc::parseOptCommandLine(argc, argv, registry, input, output))
    return 1;
  // A gptc dump's header and spec survive (KeepDumpHeader.h), so that the
  // output feeds gptc compile --from.
  return gptc::runKeepingDumpHeader(
      argc, argv, input, output,
      [&](const std::string &in, const std::string &out) {
        return mlir::asMainReturnCode(
            mlir::MlirOptMain(argc, argv, in, out, registry));
      });
}
