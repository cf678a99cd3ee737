//===- GPTDialect.cpp - gpt dialect registration and attributes -----------===//

#include "dialects/GPT/GPTDialect.h"

#include "dialects/PureInliner.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::gpt;

#include "dialects/GPT/GPTDialect.cpp.inc"
#include "dialects/GPT/GPTEnums.cpp.inc"
#include "dialects/GPT/GPTInterfaces.cpp.inc"

/// [#gpt.arena_slot<...>, ...] (the slots of #gpt.arena), possibly empty.
static ParseResult parseArenaSlots(AsmParser &parser,
                                   SmallVector<ArenaSlotAttr> &slots) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    ArenaSlotAttr slot;
    if (parser.parseAttribute(slot))
      return failure();
    slots.push_back(slot);
    return success();
  });
}

static void printArenaSlots(AsmPrinter &printer,
                            ArrayRef<ArenaSlotAttr> slots) {
  printer << '[';
  llvm::interleaveComma(slots, printer, [&](ArenaSlotAttr slot) {
    printer.printAttribute(slot);
  });
  printer << ']';
}

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

//===----------------------------------------------------------------------===//
// Arena layout
//===----------------------------------------------------------------------===//

constexpr int64_t kArenaAlignment = 64;

int64_t ArenaSlotAttr::getByteSize() const {
  return getType().getNumElements() *
         static_cast<int64_t>((getType().getElementTypeBitWidth() + 7) / 8);
}

LogicalResult
ArenaSlotAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringAttr name, int64_t offset, RankedTensorType type) {
  if (!name || name.getValue().empty())
    return emitError() << "an arena slot needs a name";
  if (offset < 0 || offset % kArenaAlignment != 0)
    return emitError() << "slot '" << name.getValue() << "': offset " << offset
                       << " is not a non-negative multiple of "
                       << kArenaAlignment;
  if (!type.hasStaticShape())
    return emitError() << "slot '" << name.getValue()
                       << "' needs a statically shaped tensor";
  return success();
}

LogicalResult
ArenaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t bytes, int64_t workspaceOffset,
                        int64_t workspaceBytes, ArrayRef<ArenaSlotAttr> slots) {
  if (bytes <= 0)
    return emitError() << "arena bytes must be positive, got " << bytes;
  if (workspaceOffset < 0 || workspaceBytes < 0 ||
      workspaceOffset + workspaceBytes > bytes)
    return emitError() << "workspace [" << workspaceOffset << ", "
                       << workspaceOffset + workspaceBytes
                       << ") is not inside the arena of " << bytes << " bytes";
  llvm::StringSet<> names;
  SmallVector<std::pair<int64_t, ArenaSlotAttr>> byOffset;
  for (ArenaSlotAttr slot : slots) {
    if (!names.insert(slot.getName().getValue()).second)
      return emitError() << "slot '" << slot.getName().getValue()
                         << "' appears twice";
    int64_t end = slot.getOffset() + slot.getByteSize();
    if (end > bytes || (workspaceBytes > 0 && end > workspaceOffset))
      return emitError() << "slot '" << slot.getName().getValue()
                         << "' ends at byte " << end
                         << ", past the slots' region";
    byOffset.push_back({slot.getOffset(), slot});
  }
  llvm::sort(byOffset, llvm::less_first());
  for (size_t i = 1; i < byOffset.size(); ++i) {
    ArenaSlotAttr prev = byOffset[i - 1].second, next = byOffset[i].second;
    if (prev.getOffset() + prev.getByteSize() > next.getOffset())
      return emitError() << "slots '" << prev.getName().getValue() << "' and '"
                         << next.getName().getValue() << "' overlap";
  }
  return success();
}

ArenaSlotAttr ArenaLayoutAttr::lookup(StringRef name) const {
  for (ArenaSlotAttr slot : getSlots())
    if (slot.getName().getValue() == name)
      return slot;
  return {};
}

ArenaLayoutAttr ArenaLayoutAttr::withWorkspace(int64_t bytes, int64_t offset,
                                               int64_t size) const {
  return ArenaLayoutAttr::get(getContext(), bytes, offset, size, getSlots());
}

LogicalResult SoftcapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  SoftcapKind, FloatAttr capAttr,
                                  FloatAttr scaleAttr) {
  if (!capAttr || !scaleAttr || !capAttr.getType().isF64() ||
      !scaleAttr.getType().isF64())
    return emitError() << "softcap cap and scale must be f64 attributes";
  double cap = capAttr.getValueAsDouble(), scale = scaleAttr.getValueAsDouble();
  if (!(cap > 0.0) || !std::isfinite(cap) || !(scale > 0.0) ||
      !std::isfinite(scale))
    return emitError() << "softcap cap and scale must be positive and finite, "
                          "got cap "
                       << cap << ", scale " << scale;
  return success();
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
