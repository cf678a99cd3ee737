//===- DedupKernels.cpp - One gpu.module per distinct kernel --------------===//
//
// gpu.module @k1 { gpu.func @f }  gpu.module @k2 { gpu.func @f, the same }
// gpu.module @k3 { gpu.func @f, another body }
// gpu.launch_func @k2::@f ...     gpu.launch_func @k3::@f ...
//   =>
// gpu.module @f { gpu.func @f }   gpu.module @f_1 { gpu.func @f_1 }
// gpu.launch_func @f::@f ...      gpu.launch_func @f_1::@f_1 ...
// module attributes {gptc.kernel_aliases = {k2 = @f}}
//
// Outlined kernels repeat per layer; translating a kernel module to PTX is
// most of the compile time of the CUDA target, so each distinct body is
// translated once. Each distinct kernel then gets a name of its own, its
// function's (gptc-name-kernels'), numbered when two differ: a driver
// error or a profile names one kernel. The aliases keep the removed
// modules' names for the files of --emit=ptx -o DIR.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
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

/// The kernel function of an outlined module (null unless exactly one).
gpu::GPUFuncOp kernelOf(gpu::GPUModuleOp kernelModule) {
  gpu::GPUFuncOp kernel;
  for (auto fn : kernelModule.getOps<gpu::GPUFuncOp>())
    if (fn.isKernel()) {
      if (kernel)
        return nullptr;
      kernel = fn;
    }
  return kernel;
}

/// What a kernel's code depends on: its gpu.module without the names of
/// the module and of its kernel function (outlining names modules apart,
/// gptc-name-kernels names kernels after their origin).
std::string kernelKey(gpu::GPUModuleOp kernelModule) {
  std::string key;
  llvm::raw_string_ostream os(key);
  OpPrintingFlags flags;
  flags.enableDebugInfo(false).useLocalScope();
  for (NamedAttribute attr : kernelModule->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName())
      os << attr.getName() << "=" << attr.getValue() << "\n";
  gpu::GPUFuncOp kernel = kernelOf(kernelModule);
  StringAttr name = kernel ? kernel.getNameAttr() : StringAttr();
  if (kernel)
    SymbolTable::setSymbolName(kernel, "kernel");
  for (Operation &op : kernelModule.getBody()->getOperations())
    op.print(os, flags);
  if (kernel)
    SymbolTable::setSymbolName(kernel, name);
  return key;
}

struct DedupKernelsPass : gptc::impl::DedupKernelsPassBase<DedupKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // 1. Merge: every module whose key was seen goes; its launches (and
    //    alias) point at the first one.
    std::map<std::string, gpu::GPUModuleOp> keptByKey;
    // Every module's name (as outlining gave it) -> the module kept for it.
    llvm::DenseMap<StringAttr, gpu::GPUModuleOp> keptFor;
    SmallVector<StringAttr> removed;
    SmallVector<gpu::GPUModuleOp> kept;
    for (auto kernelModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      auto [it, inserted] =
          keptByKey.try_emplace(kernelKey(kernelModule), kernelModule);
      keptFor[kernelModule.getSymNameAttr()] = it->second;
      if (inserted) {
        kept.push_back(kernelModule);
        continue;
      }
      removed.push_back(kernelModule.getSymNameAttr());
      kernelModule.erase();
    }
    // 2. Name: each kept module and its kernel after the kernel function,
    //    the second and later of one name numbered.
    llvm::StringMap<unsigned> uses;
    // The names in use but for the kept kernels' own: a kept module may
    // hold a name another one is to get.
    llvm::StringSet<> taken;
    for (Operation &op : module.getBody()->getOperations())
      if (auto name =
              op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
        if (!isa<gpu::GPUModuleOp>(op) || !kernelOf(cast<gpu::GPUModuleOp>(op)))
          taken.insert(name.getValue());
    for (gpu::GPUModuleOp kernelModule : kept) {
      gpu::GPUFuncOp kernel = kernelOf(kernelModule);
      if (!kernel)
        continue;
      std::string base = kernel.getName().str(), name;
      do {
        unsigned n = uses[base]++;
        name = n ? base + "_" + std::to_string(n) : base;
      } while (!taken.insert(name).second);
      SymbolTable::setSymbolName(kernel, name);
      SymbolTable::setSymbolName(kernelModule, name);
    }
    auto target = [&](gpu::GPUModuleOp kernelModule, StringRef oldFunc) {
      gpu::GPUFuncOp kernel = kernelOf(kernelModule);
      return SymbolRefAttr::get(
          kernelModule.getSymNameAttr(),
          {FlatSymbolRefAttr::get(ctx, kernel ? kernel.getName() : oldFunc)});
    };
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (gpu::GPUModuleOp to = keptFor.lookup(launch.getKernelModuleName()))
        launch.setKernelAttr(target(to, launch.getKernelName().getValue()));
    });
    SmallVector<NamedAttribute> aliases;
    for (StringAttr name : removed)
      aliases.push_back(NamedAttribute(
          name, FlatSymbolRefAttr::get(keptFor[name].getSymNameAttr())));
    LLVM_DEBUG(llvm::dbgs() << kept.size() << " distinct kernels, "
                            << aliases.size() << " aliases\n");
    if (!aliases.empty())
      module->setAttr("gptc.kernel_aliases", DictionaryAttr::get(ctx, aliases));
  }
};

} // namespace
