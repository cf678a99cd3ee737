//===- OptimDialect.cpp - optim dialect registration and attributes -------===//

#include "dialects/Optim/OptimDialect.h"

#include "dialects/PureInliner.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::optim;

#include "dialects/Optim/OptimDialect.cpp.inc"
#include "dialects/Optim/OptimEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Optim/OptimAttrs.cpp.inc"

void OptimDialect::initialize() {
  addInterfaces<gptc::PureInlinerInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Optim/OptimAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Optim/OptimOps.cpp.inc"
      >();
}
