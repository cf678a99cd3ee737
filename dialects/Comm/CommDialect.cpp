//===- CommDialect.cpp - comm dialect registration and attributes ---------===//

#include "dialects/Comm/CommDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::comm;

#include "dialects/Comm/CommDialect.cpp.inc"
#include "dialects/Comm/CommEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Comm/CommAttrs.cpp.inc"

void CommDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Comm/CommAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Comm/CommOps.cpp.inc"
      >();
}
