//===- TrainingShape.cpp - The ranks and micro-steps a module is for ------===//

#include "passes/Step/TrainingShape.h"

#include "mlir/IR/BuiltinAttributes.h"

namespace gptc {

mlir::FailureOr<int64_t> trainingCount(mlir::ModuleOp module,
                                       llvm::StringRef attrName, int64_t option,
                                       llvm::StringRef pass,
                                       llvm::StringRef optionName) {
  auto attr = module->getAttrOfType<mlir::IntegerAttr>(attrName);
  int64_t recorded = attr ? attr.getInt() : 0;
  if (option < 0 || (attr && recorded < 1)) {
    module.emitError() << pass << ": " << optionName
                       << " must be at least 1, got "
                       << (option < 0 ? option : recorded);
    return mlir::failure();
  }
  if (option != 0 && attr && option != recorded) {
    module.emitError() << pass << ": " << optionName << "=" << option
                       << ", but the module was made for " << recorded
                       << " (its " << attrName
                       << " attribute, from the spec); run with " << optionName
                       << "=" << recorded << " or leave it unset";
    return mlir::failure();
  }
  return option != 0 ? option : attr ? recorded : 1;
}

} // namespace gptc
