//===- ObjectCode.cpp - The step's LLVM dialect module to step.so ---------===//

#include "driver/ObjectCode.h"

#include "driver/PhaseTimes.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <malloc.h>
#include <mutex>

namespace gptc {

namespace {

/// A target machine for `cpu`: "native" is the host CPU with all its
/// features, anything else an LLVM CPU name with that CPU's features. One
/// per thread: a TargetMachine is not shared between threads.
std::unique_ptr<llvm::TargetMachine> createMachine(const std::string &cpu,
                                                   llvm::CodeGenOptLevel level,
                                                   std::string &error) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string features;
  std::string name = cpu;
  if (cpu == kNativeCPU) {
    name = llvm::sys::getHostCPUName().str();
    for (auto &f : llvm::sys::getHostCPUFeatures())
      features += (f.second ? "+" : "-") + f.first().str() + ",";
  }
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, name, features, options, llvm::Reloc::PIC_, std::nullopt, level));
}

/// One part of the step, as bitcode, and how hard to optimise it.
struct Part {
  llvm::SmallVector<char, 0> bitcode;
  bool kernels;        // -O3 code generation, or the host's -O0
  unsigned irOptLevel; // the IR passes' level (-O3, or the host's)
};

/// Optimises one part and writes its object file.
bool compilePart(const Part &part, const std::string &cpu,
                 const std::string &path, std::string &error) {
  llvm::LLVMContext context;
  auto module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(
          llvm::StringRef(part.bitcode.data(), part.bitcode.size()),
          "gptc_step_part"),
      context);
  if (!module) {
    error = llvm::toString(module.takeError());
    return false;
  }
  std::unique_ptr<llvm::TargetMachine> tm =
      createMachine(cpu,
                    part.kernels ? llvm::CodeGenOptLevel::Aggressive
                                 : llvm::CodeGenOptLevel::None,
                    error);
  if (!tm)
    return false;
  (*module)->setDataLayout(tm->createDataLayout());
  (*module)->setTargetTriple(tm->getTargetTriple());
  auto optimize = mlir::makeOptimizingTransformer(part.irOptLevel, 0, tm.get());
  if (llvm::Error err = optimize(module->get())) {
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
  codegen.run(**module);
  return true;
}

/// The kernels (gptc-outline-kernels: gptc_kernel_N) and what OpenMP
/// outlined from them (gptc_kernel_N..omp_par).
bool isKernel(const llvm::GlobalValue &value) {
  llvm::StringRef name = value.getName();
  return llvm::isa<llvm::Function>(value) &&
         name.consume_front("gptc_kernel_") && !name.empty() &&
         llvm::isDigit(name.front());
}

/// Every internal symbol becomes a hidden external one, so that parts may
/// reference each other's (kernels, their OpenMP bodies, constants).
void externalizeLocals(llvm::Module &module) {
  auto externalize = [](llvm::GlobalValue &value) {
    if (!value.hasLocalLinkage())
      return;
    if (!value.hasName())
      value.setName("gptc_step_unnamed");
    value.setLinkage(llvm::GlobalValue::ExternalLinkage);
    value.setVisibility(llvm::GlobalValue::HiddenVisibility);
  };
  for (llvm::Function &fn : module)
    externalize(fn);
  for (llvm::GlobalVariable &var : module.globals())
    externalize(var);
  // Kernels were private functions: not step.so's interface either.
  for (llvm::Function &fn : module)
    if (isKernel(fn))
      fn.setVisibility(llvm::GlobalValue::HiddenVisibility);
}

void appendBitcode(std::vector<Part> &parts, const llvm::Module &module,
                   bool kernels, unsigned irOptLevel) {
  parts.push_back({{}, kernels, irOptLevel});
  llvm::raw_svector_ostream os(parts.back().bitcode);
  llvm::WriteBitcodeToFile(module, os);
}

} // namespace

bool isKnownCPU(const std::string &cpu) {
  if (cpu == kNativeCPU)
    return true;
  llvm::InitializeNativeTarget();
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm =
      createMachine(kNativeCPU, llvm::CodeGenOptLevel::None, error);
  return tm && tm->getMCSubtargetInfo()->isCPUStringValid(cpu);
}

bool describeCPU(const std::string &cpu, CPUDescription &out,
                 std::string &error) {
  llvm::InitializeNativeTarget();
  std::unique_ptr<llvm::TargetMachine> tm =
      createMachine(cpu, llvm::CodeGenOptLevel::None, error);
  if (!tm)
    return false;
  const llvm::MCSubtargetInfo *info = tm->getMCSubtargetInfo();
  out.name = tm->getTargetCPU().str();
  out.features.clear();
  for (const llvm::SubtargetFeatureKV &f : info->getAllProcessorFeatures())
    if (info->getFeatureBits().test(f.Value))
      out.features.push_back(f.Key);
  return true;
}

bool emitObjects(mlir::ModuleOp module, const std::string &stem,
                 const std::string &cpu, unsigned jobs,
                 std::vector<std::string> &objects, std::string &error,
                 PhaseTimes *times, unsigned hostOptLevel) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext, "gptc_step");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  // The MLIR module's memory goes to the LLVM IR from here on.
  for (mlir::Operation &op :
       llvm::make_early_inc_range(module.getBody()->getOperations()))
    op.erase();
  malloc_trim(0);
  externalizeLocals(*llvmModule);
  if (times)
    times->end("translate to LLVM IR");

  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(jobs);
  unsigned threads = strategy.compute_thread_count();
  // The kernels at -O3, in more parts than threads (balanced by size): a
  // thread that finishes early takes the next. Cloned out of the module
  // (they are small next to the host code of a deep model); everything
  // else is a declaration there, their globals the host part's, and the
  // LLVM ones (llvm.global_ctors of a CUDA host) stay in the host part.
  std::unique_ptr<llvm::Module> kernels;
  {
    llvm::ValueToValueMapTy map;
    kernels =
        llvm::CloneModule(*llvmModule, map, [](const llvm::GlobalValue *v) {
          return isKernel(*v);
        });
  }
  for (llvm::GlobalVariable &var :
       llvm::make_early_inc_range(kernels->globals()))
    if (var.getName().starts_with("llvm."))
      var.eraseFromParent();
  // The host part: the entry points (a call per kernel, GEMM calls, views
  // of the arena) and the globals. Straight-line code as long as the model
  // is deep, run once per step: -O3 as the kernels (the same IR passes, so
  // its scalar arithmetic, reassociated reductions included, gives the same
  // bits at every depth) but -O0 code generation, whose fast register
  // allocation stays linear in its length (the greedy allocator's
  // interference checks across its calls are not). A CUDA host is launch
  // glue only (its arithmetic runs in kernels): `hostOptLevel` 0 there,
  // the IR passes' -O3 took R15's 2,300 launches 300 s, -O1 176 s, -O0 2 s.
  std::vector<Part> parts;
  for (llvm::Function &fn : *llvmModule)
    if (isKernel(fn))
      fn.deleteBody();
  appendBitcode(parts, *llvmModule, /*kernels=*/false, hostOptLevel);
  llvmModule.reset();
  unsigned count = threads == 1 ? 1 : 4 * threads;
  llvm::SplitModule(
      *kernels, count,
      [&](std::unique_ptr<llvm::Module> part) {
        appendBitcode(parts, *part, /*kernels=*/true, /*irOptLevel=*/3);
      },
      /*PreserveLocals=*/true, /*RoundRobin=*/true);
  kernels.reset();

  std::mutex failure;
  llvm::DefaultThreadPool pool(strategy);
  objects.clear();
  for (size_t i = 0; i < parts.size(); ++i)
    objects.push_back(stem + "." + std::to_string(i) + ".o");
  for (size_t i = 0; i < parts.size(); ++i) {
    pool.async([&, i] {
      std::string partError;
      if (compilePart(parts[i], cpu, objects[i], partError))
        return;
      std::lock_guard<std::mutex> lock(failure);
      if (error.empty())
        error = partError;
    });
  }
  pool.wait();
  if (times)
    times->end("optimise and compile (" + std::to_string(parts.size()) +
               " parts, " + std::to_string(threads) +
               (threads == 1 ? " thread)" : " threads)"));
  return error.empty();
}

bool linkSharedObject(const std::vector<std::string> &objects,
                      const std::string &output, std::string &error) {
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc) {
    error = "no C compiler driver (cc) on PATH to link step.so";
    return false;
  }
  std::string libDir = "/usr/lib/llvm-22/lib";
  std::vector<std::string> args = {*cc, "-shared", "-o", output};
  args.insert(args.end(), objects.begin(), objects.end());
  args.insert(args.end(),
              {"-L" + libDir, "-Wl,-rpath," + libDir, "-lomp", "-lm"});
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  int rc =
      llvm::sys::ExecuteAndWait(*cc, argRefs, std::nullopt, {}, 0, 0, &message);
  if (rc != 0) {
    error = "linking step.so failed (" + std::to_string(rc) + ")" +
            (message.empty() ? "" : ": " + message);
    return false;
  }
  return true;
}

} // namespace gptc
