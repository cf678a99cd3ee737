//===- Compile.cpp - Spec -> IR stages and the step bundle ----------------===//

#include "tools/gptc/Compile.h"

#include "dialects/InitAllDialects.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parameters.h"
#include "frontend/SpecParser.h"
#include "tools/gptc/Manifest.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <map>

using namespace mlir;

namespace gptc {

void prepareContext(MLIRContext &ctx) {
  DialectRegistry registry;
  gptc::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> compileToStage(MLIRContext &ctx, const ModelSpec &spec,
                                     Stage stage, Target target, bool fuse,
                                     bool kernelMarks) {
  OwningOpRef<ModuleOp> module = buildForwardModule(ctx, spec);
  if (!module || failed(buildUpdateFunction(*module, spec)))
    return nullptr;
  PassManager pm(&ctx);
  if (failed(applyPassManagerCLOptions(pm)))
    return nullptr;
  PipelineOptions options;
  options.stopAfter = stage;
  options.gradAccum = spec.training.gradAccum();
  options.target = target;
  options.fuse = fuse;
  options.kernelMarks = kernelMarks;
  buildGPTCPipeline(pm, options);
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// Points MLIR's NVVM target at the CUDA toolkit (for libdevice, which the
/// math functions of the kernels link against) when the environment names
/// none: CUDAToolkit_ROOT at configure time, or /usr/local/cuda.
static void locateCUDAToolkit() {
  for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(var); value && *value)
      return;
  ::setenv("CUDA_ROOT", GPTC_CUDA_TOOLKIT_DIR, /*overwrite=*/0);
}

namespace {

/// What a kernel's PTX depends on: its gpu.module without the module's
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

/// Keeps one of each set of identical outlined kernels (the same loop nest
/// in every layer) and points the launches of the others at it. Returns
/// every kernel's name, in order, with the name of the one that stands for
/// it.
std::vector<std::pair<std::string, std::string>> dedupKernels(ModuleOp module) {
  std::vector<std::pair<std::string, std::string>> kernels;
  std::map<std::string, std::string> keptByKey;
  llvm::StringMap<StringAttr> replacement;
  for (auto kernelModule :
       llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
    std::string name = kernelModule.getSymName().str();
    auto [it, inserted] = keptByKey.try_emplace(kernelKey(kernelModule), name);
    kernels.push_back({name, it->second});
    if (inserted)
      continue;
    replacement[name] = StringAttr::get(module.getContext(), it->second);
    kernelModule.erase();
  }
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto it = replacement.find(launch.getKernelModuleName());
    if (it != replacement.end())
      launch.setKernelAttr(SymbolRefAttr::get(
          it->second, {FlatSymbolRefAttr::get(launch.getKernelName())}));
  });
  return kernels;
}

} // namespace

bool emitPTX(ModuleOp module, std::vector<PTXKernel> &kernels) {
  locateCUDAToolkit();
  // Outline the gpu.launch ops (as the NVVM pipeline would, whose own
  // outlining then has nothing left to do) and translate each distinct
  // kernel once: most kernels repeat per layer, and translating a kernel
  // module to PTX is most of the time.
  OwningOpRef<ModuleOp> outlined = cast<ModuleOp>(module->clone());
  PassManager outline(module.getContext());
  outline.addPass(createGpuKernelOutliningPass());
  if (failed(outline.run(*outlined)))
    return false;
  std::vector<std::pair<std::string, std::string>> names =
      dedupKernels(*outlined);
  for (const char *chip : {"sm_80", "sm_90"}) {
    OwningOpRef<ModuleOp> copy = cast<ModuleOp>((*outlined)->clone());
    PassManager pm(module.getContext());
    buildNVVMPipeline(pm, chip);
    if (failed(pm.run(*copy)))
      return false;
    llvm::StringMap<std::string> ptx;
    copy->walk([&](gpu::BinaryOp binary) {
      for (Attribute a : binary.getObjects())
        if (auto object = dyn_cast<gpu::ObjectAttr>(a))
          ptx[binary.getSymName()] = object.getObject().str();
    });
    for (const auto &[name, kept] : names) {
      auto it = ptx.find(kept);
      if (it == ptx.end()) {
        emitError(module.getLoc())
            << "no PTX for kernel " << kept << " (" << chip << ")";
        return false;
      }
      kernels.push_back({name, chip, it->second});
    }
  }
  return true;
}

namespace {

/// Object code for the host CPU, optimised at -O3.
bool emitObject(ModuleOp module, const std::string &path, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "gptc_step");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return false;
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  std::string features;
  for (auto &f : hostFeatures)
    features += (f.second ? "+" : "-") + f.first().str() + ",";
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features, options,
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(triple);
  auto optimize = makeOptimizingTransformer(3, 0, tm.get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    error = llvm::toString(std::move(err));
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write " + path + ": " + ec.message();
    return false;
  }
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return false;
  }
  codegen.run(*llvmModule);
  return true;
}

/// cc -shared -o step.so step.o -lomp (LLVM's OpenMP runtime) -lm
bool linkSharedObject(const std::string &object, const std::string &output,
                      std::string &error) {
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc) {
    error = "no C compiler driver (cc) on PATH to link step.so";
    return false;
  }
  std::string libDir = "/usr/lib/llvm-22/lib";
  std::vector<std::string> args = {*cc,
                                   "-shared",
                                   "-o",
                                   output,
                                   object,
                                   "-L" + libDir,
                                   "-Wl,-rpath," + libDir,
                                   "-lomp",
                                   "-lm"};
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*cc, argRefs, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0) {
    error = "linking step.so failed (" + std::to_string(rc) + ")" +
            (message.empty() ? "" : ": " + message);
    return false;
  }
  return true;
}

} // namespace

bool writeBundle(ModuleOp module, const ModelSpec &spec,
                 const std::string &outDir, std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    error = "cannot create " + outDir + ": " + ec.message();
    return false;
  }
  auto join = [&](const char *name) {
    llvm::SmallString<256> p(outDir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  // The manifest reads the layout the pipeline recorded on the module.
  if (!writeManifest(module, spec, join("manifest.json"), error))
    return false;
  std::string object = join("step.o");
  if (!emitObject(module, object, error) ||
      !linkSharedObject(object, join("step.so"), error))
    return false;
  llvm::sys::fs::remove(object);
  std::error_code ec;
  llvm::raw_fd_ostream specOut(join("spec.yaml"), ec);
  if (ec) {
    error = "cannot write spec.yaml: " + ec.message();
    return false;
  }
  specOut << "# " << spec.file
          << " with extends: merged and overrides applied (gptc compile)\n"
          << spec.resolvedYaml;
  return true;
}

bool writeCudaBundle(ModuleOp module, const ModelSpec &spec,
                     const std::string &outDir, std::string &error) {
  locateCUDAToolkit();
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir)) {
    error = "cannot create " + outDir + ": " + ec.message();
    return false;
  }
  auto join = [&](const char *name) {
    llvm::SmallString<256> p(outDir);
    llvm::sys::path::append(p, name);
    return std::string(p);
  };
  if (!writeManifest(module, spec, join("manifest.json"), error))
    return false;
  OwningOpRef<ModuleOp> copy = cast<ModuleOp>(module->clone());
  PassManager pm(module.getContext());
  buildNVVMPipeline(pm, "sm_90");
  if (failed(pm.run(*copy))) {
    error = "lowering the CUDA host and kernels failed";
    return false;
  }
  // Temporaries outside the arena (memref.alloc) are handed to kernels:
  // they come from gptc_cuda_host_alloc/free (page-locked host memory,
  // which kernels address directly), not malloc/free.
  SymbolTable symbols(*copy);
  for (auto [from, to] : {std::pair<const char *, const char *>{
                              "malloc", "gptc_cuda_host_alloc"},
                          {"free", "gptc_cuda_host_free"}})
    if (Operation *fn = symbols.lookup(from))
      if (failed(symbols.rename(fn, to))) {
        error = std::string("cannot rename ") + from;
        return false;
      }
  std::string object = join("step.o");
  if (!emitObject(*copy, object, error) ||
      !linkSharedObject(object, join("step.so"), error))
    return false;
  llvm::sys::fs::remove(object);
  return true;
}

bool compileSpecToBundle(const std::string &specPath,
                         const std::vector<std::string> &overrides,
                         const std::string &outDir, std::string &error,
                         bool fuse) {
  ModelSpec spec;
  SpecError specError;
  if (!parseSpecFile(specPath, overrides, spec, specError)) {
    error = specError.str();
    return false;
  }
  MLIRContext ctx;
  prepareContext(ctx);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diagnostics.empty())
      diagnostics = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = compileToStage(ctx, spec, Stage::LLVM, Target::CPU, fuse);
  if (!module) {
    error = "compiling " + specPath + " failed: " + diagnostics;
    return false;
  }
  return writeBundle(*module, spec, outDir, error);
}

} // namespace gptc
