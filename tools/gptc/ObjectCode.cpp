//===- ObjectCode.cpp - The step's LLVM dialect module to step.so ---------===//

#include "tools/gptc/ObjectCode.h"

#include "tools/gptc/PhaseTimes.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <mutex>

namespace gptc {

namespace {

/// A target machine for the host CPU and all its features, at -O3. One per
/// thread: a TargetMachine is not shared between threads.
std::unique_ptr<llvm::TargetMachine> createHostMachine(std::string &error) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string features;
  for (auto &f : llvm::sys::getHostCPUFeatures())
    features += (f.second ? "+" : "-") + f.first().str() + ",";
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

/// Optimises one part (bitcode) at -O3 and writes its object file.
bool compilePart(llvm::StringRef bitcode, const std::string &path,
                 std::string &error) {
  llvm::LLVMContext context;
  auto part = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "gptc_step_part"), context);
  if (!part) {
    error = llvm::toString(part.takeError());
    return false;
  }
  std::unique_ptr<llvm::TargetMachine> tm = createHostMachine(error);
  if (!tm)
    return false;
  (*part)->setDataLayout(tm->createDataLayout());
  (*part)->setTargetTriple(tm->getTargetTriple());
  auto optimize = mlir::makeOptimizingTransformer(3, 0, tm.get());
  if (llvm::Error err = optimize(part->get())) {
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
  codegen.run(**part);
  return true;
}

/// Kernels (gptc-outline-kernels) are linked across parts but are not
/// step.so's interface: hidden symbols.
void hideKernels(llvm::Module &module) {
  for (llvm::Function &fn : module)
    if (fn.getName().starts_with("gptc_kernel_")) {
      fn.setLinkage(llvm::GlobalValue::ExternalLinkage);
      fn.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
}

} // namespace

bool emitObjects(mlir::ModuleOp module, const std::string &stem, unsigned jobs,
                 std::vector<std::string> &objects, std::string &error,
                 PhaseTimes *times) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, llvmContext, "gptc_step");
  if (!llvmModule) {
    error = "translation to LLVM IR failed";
    return false;
  }
  hideKernels(*llvmModule);
  if (times)
    times->end("translate to LLVM IR");

  llvm::ThreadPoolStrategy strategy = llvm::hardware_concurrency(jobs);
  unsigned threads = strategy.compute_thread_count();
  // More parts than threads: a thread that finishes early takes the next.
  unsigned count = threads == 1 ? 1 : 4 * threads;
  std::vector<llvm::SmallVector<char, 0>> parts;
  llvm::SplitModule(
      *llvmModule, count,
      [&](std::unique_ptr<llvm::Module> part) {
        parts.emplace_back();
        llvm::raw_svector_ostream os(parts.back());
        llvm::WriteBitcodeToFile(*part, os);
      },
      /*PreserveLocals=*/false, /*RoundRobin=*/true);
  llvmModule.reset();

  std::mutex failure;
  llvm::DefaultThreadPool pool(strategy);
  objects.clear();
  for (size_t i = 0; i < parts.size(); ++i)
    objects.push_back(stem + "." + std::to_string(i) + ".o");
  for (size_t i = 0; i < parts.size(); ++i) {
    pool.async([&, i] {
      std::string partError;
      if (compilePart(llvm::StringRef(parts[i].data(), parts[i].size()),
                      objects[i], partError))
        return;
      std::lock_guard<std::mutex> lock(failure);
      if (error.empty())
        error = partError;
    });
  }
  pool.wait();
  if (times)
    times->end("optimise and compile (" + std::to_string(parts.size()) +
               " parts, " + std::to_string(threads) + " threads)");
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
