//===- gptc-opt.cpp - mlir-opt with gptc's dialects and passes ------------===//

#include "dialects/InitAllDialects.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllPasses();
  gptc::registerAllDialects(registry);
  gptc::registerGPTCPasses();
  gptc::registerGPTCPipeline();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "gptc optimizer driver\n", registry));
}
