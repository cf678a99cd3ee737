//===- NameKernels.cpp - Kernels named by the spec key they compute -------===//
//
// func.func @gptc_grad_step(...) {
//   gpu.launch ... { ... } loc("blocks.3.attn.sdpa"(...))
//   =>
//   gpu.launch ... { ... } {function = @grad_blocks_attn_sdpa}
//
// gpu-kernel-outlining names every kernel after its function
// (gptc_grad_step_kernel, the same for all of them), so a launch error or a
// profile could not say which kernel it was. The name is the entry point
// (gptc_ and _step dropped) and the spec key of the launch's location, the
// layer's index dropped: the same kernel in every layer has the same name,
// and gptc-dedup-kernels keeps one of them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/SpecKey.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringExtras.h"

namespace gptc {
#define GEN_PASS_DEF_NAMEKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// "blocks.3.attn.sdpa" -> "blocks_attn_sdpa": numeric components (layer
/// indices) dropped, anything but letters, digits and '_' made '_'.
std::string identifierOf(StringRef key) {
  SmallVector<StringRef> parts;
  key.split(parts, '.', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::string out;
  for (StringRef part : parts) {
    if (llvm::all_of(part, llvm::isDigit))
      continue;
    if (!out.empty())
      out += '_';
    for (char c : part)
      out += llvm::isAlnum(c) || c == '_' ? c : '_';
  }
  return out;
}

struct NameKernelsPass : gptc::impl::NameKernelsPassBase<NameKernelsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    StringRef entry = func.getSymName();
    entry.consume_front("gptc_");
    entry.consume_back("_step");
    func.walk([&](gpu::LaunchOp launch) {
      if (launch.getFunctionAttr())
        return;
      std::string origin = identifierOf(gptc::specKeyOf(launch.getLoc()));
      // update.wte in gptc_update_step: update_wte, not update_update_wte.
      if (StringRef(origin).starts_with(entry.str() + "_"))
        origin = origin.substr(entry.size() + 1);
      std::string name =
          (entry + "_" + (origin.empty() ? "kernel" : origin)).str();
      launch.setFunctionAttr(FlatSymbolRefAttr::get(&getContext(), name));
    });
  }
};

} // namespace
