//===- GPTDialect.cpp - gpt dialect registration and attributes -----------===//

#include "dialects/GPT/GPTDialect.h"

#include "dialects/PureInliner.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gpt;

#include "dialects/GPT/GPTDialect.cpp.inc"
#include "dialects/GPT/GPTEnums.cpp.inc"
#include "dialects/GPT/GPTInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/GPT/GPTAttrs.cpp.inc"

void GPTDialect::initialize() {
  addInterfaces<gptc::PureInlinerInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/GPT/GPTAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/GPT/GPTOps.cpp.inc"
      >();
}

LogicalResult MaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               bool causal, WindowUnit window, int64_t bos) {
  if (window != WindowUnit::none && !causal)
    return emitError() << "a sliding window requires a causal mask";
  if (bos < -1)
    return emitError() << "bos must be a token id or -1 (no document mask), "
                          "got "
                       << bos;
  return success();
}
