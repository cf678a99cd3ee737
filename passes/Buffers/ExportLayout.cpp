//===- ExportLayout.cpp - The layout descriptor of the step library -------===//
//
// module attributes {gptc.arena = #gpt.arena<bytes = N, ...>}
//   =>
// + llvm.mlir.global external constant
// @gptc_step_layout("gptc-layout/1\n...\00")
// + llvm.mlir.global external constant @gptc_step_layout_sha256("ab12...\00")
//
// The text is runtime/StepLayout.h's, built from the typed layout.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "runtime/StepLayout.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "gptc-export-layout"

namespace gptc {
#define GEN_PASS_DEF_EXPORTLAYOUTPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// "f32", "bf16", "i64", ... as the manifest spells element types.
std::string dtypeName(Type t) {
  if (t.isBF16())
    return "bf16";
  if (auto f = dyn_cast<FloatType>(t))
    return "f" + std::to_string(f.getWidth());
  return "i" + std::to_string(t.getIntOrFloatBitWidth());
}

std::string layoutText(gpt::ArenaLayoutAttr layout) {
  std::vector<gptc::layout::SlotLine> lines;
  for (gpt::ArenaSlotAttr slot : layout.getSlots())
    lines.push_back({slot.getName().str(), slot.getOffset(),
                     dtypeName(slot.getType().getElementType()),
                     std::vector<int64_t>(slot.getType().getShape().begin(),
                                          slot.getType().getShape().end())});
  return gptc::layout::layoutText(layout.getBytes(),
                                  layout.getWorkspaceOffset(),
                                  layout.getWorkspaceBytes(), lines);
}

struct ExportLayoutPass : gptc::impl::ExportLayoutPassBase<ExportLayoutPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto layout = module->getAttrOfType<gpt::ArenaLayoutAttr>(
        gpt::ArenaLayoutAttr::kAttrName);
    if (!layout)
      return;
    std::string text = layoutText(layout);
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    for (auto [name, value] :
         {std::pair<const char *, std::string>{gptc::layout::kLayoutSymbol,
                                               text},
          {gptc::layout::kLayoutHashSymbol, gptc::layout::layoutHash(text)}}) {
      if (module.lookupSymbol(name)) {
        module.emitError() << "gptc-export-layout: @" << name
                           << " is defined already";
        return signalPassFailure();
      }
      std::string bytes = value + '\0';
      auto type = LLVM::LLVMArrayType::get(b.getI8Type(), bytes.size());
      LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true,
                             LLVM::Linkage::External, name,
                             b.getStringAttr(bytes));
    }
    LLVM_DEBUG(llvm::dbgs() << "exported layout:\n" << text);
  }
};

} // namespace
