//===- DedupKernels.cpp - One gpu.module per distinct kernel --------------===//
//
// gpu.module @k1 {...}  gpu.module @k2 {... the same ops ...}
// gpu.launch_func @k2::@k2 ...
//   =>
// gpu.module @k1 {...}
// gpu.launch_func @k1::@k2 ...
// module attributes {gptc.kernel_aliases = {k2 = @k1}}
//
// Outlined kernels repeat per layer; translating a kernel module to PTX is
// most of the compile time of the CUDA target, so each distinct body is
// translated once. The aliases keep every kernel's name for the files of
// --emit=ptx -o DIR and for --stats.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

#define DEBUG_TYPE "gptc-dedup-kernels"

namespace gptc {
#define GEN_PASS_DEF_DEDUPKERNELSPASS
#include "passes/Passes.h.inc"
} // namespace gptc

using namespace mlir;

namespace {

/// What a kernel's code depends on: its gpu.module without the module's
/// name (outlining names every module after its entry point, while the
/// kernel function inside keeps the entry point's name).
std::string kernelKey(gpu::GPUModuleOp kernelModule) {
  std::string key;
  llvm::raw_string_ostream os(key);
  OpPrintingFlags flags;
  flags.enableDebugInfo(false).useLocalScope();
  for (NamedAttribute attr : kernelModule->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName())
      os << attr.getName() << "=" << attr.getValue() << "\n";
  for (Operation &op : kernelModule.getBody()->getOperations())
    op.print(os, flags);
  return key;
}

struct DedupKernelsPass : gptc::impl::DedupKernelsPassBase<DedupKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::map<std::string, StringAttr> keptByKey;
    llvm::StringMap<StringAttr> replacement;
    SmallVector<NamedAttribute> aliases;
    for (auto kernelModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      auto [it, inserted] = keptByKey.try_emplace(
          kernelKey(kernelModule), kernelModule.getSymNameAttr());
      if (inserted)
        continue;
      replacement[kernelModule.getSymName()] = it->second;
      aliases.push_back(NamedAttribute(kernelModule.getSymNameAttr(),
                                       FlatSymbolRefAttr::get(it->second)));
      kernelModule.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = replacement.find(launch.getKernelModuleName());
      if (it != replacement.end())
        launch.setKernelAttr(SymbolRefAttr::get(
            it->second, {FlatSymbolRefAttr::get(launch.getKernelName())}));
    });
    LLVM_DEBUG(llvm::dbgs() << keptByKey.size() << " distinct kernels, "
                            << aliases.size() << " aliases\n");
    if (!aliases.empty())
      module->setAttr("gptc.kernel_aliases",
                      DictionaryAttr::get(&getContext(), aliases));
  }
};

} // namespace
