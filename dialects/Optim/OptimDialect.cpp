//===- OptimDialect.cpp - optim dialect registration and attributes -------===//

#include "dialects/Optim/OptimDialect.h"

#include "mlir/Transforms/InliningUtils.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::optim;

#include "dialects/Optim/OptimDialect.cpp.inc"
#include "dialects/Optim/OptimEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Optim/OptimAttrs.cpp.inc"

namespace {
/// optim ops are pure tensor computations and may be inlined anywhere.
struct OptimInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void OptimDialect::initialize() {
  addInterfaces<OptimInlinerInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Optim/OptimAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Optim/OptimOps.cpp.inc"
      >();
}
