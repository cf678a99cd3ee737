//===- KernelImages.cpp - Every kernel as a fatbinary of cubins and PTX ---===//
//
// See KernelImages.h.
//
//===----------------------------------------------------------------------===//

#include "driver/KernelImages.h"

#include "driver/Ptxas.h"
#include "passes/Pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

using namespace mlir;

namespace gptc {

namespace {

/// One kernel: its PTX per chip (kPTXChips' order) and what came of it.
struct KernelJob {
  gpu::BinaryOp binary;
  Attribute target; ///< the first chip's: the object's target
  std::array<std::string, kPTXChips.size()> ptx;
  std::string fatbin, error;
};

/// "sm_90" -> "90".
llvm::StringRef smNumber(llvm::StringRef chip) {
  chip.consume_front("sm_");
  return chip;
}

/// ptxas for every chip, then fatbinary, in `dir` under `stem`.
void packOne(KernelJob &job, llvm::StringRef ptxas, llvm::StringRef fatbinary,
             llvm::StringRef dir, const std::string &stem) {
  auto path = [&](const std::string &suffix) {
    llvm::SmallString<128> p(dir);
    llvm::sys::path::append(p, stem + suffix);
    return std::string(p);
  };
  std::vector<std::string> images;
  for (size_t c = 0; c < kPTXChips.size(); ++c) {
    std::string chip = kPTXChips[c], cubin = path("." + chip + ".cubin");
    PTXASInfo info =
        runPTXAS(ptxas, chip, job.ptx[c], dir, stem + "." + chip, cubin);
    if (!info.error.empty()) {
      job.error = "ptxas (" + chip + "): " + info.error;
      return;
    }
    images.push_back("--image3=kind=elf,sm=" + smNumber(chip).str() +
                     ",file=" + cubin);
    // runPTXAS left the PTX in STEM.CHIP.ptx.
    images.push_back("--image3=kind=ptx,sm=" + smNumber(chip).str() +
                     ",file=" + path("." + chip + ".ptx"));
  }
  std::string output = path(".fatbin");
  std::string create = "--create=" + output;
  llvm::SmallVector<llvm::StringRef> args = {fatbinary, "--64", create,
                                             "--compress=false"};
  for (const std::string &image : images)
    args.push_back(image);
  if (auto failed = runCudaTool(fatbinary, args, path(".fatbin.log"))) {
    job.error = "fatbinary: " + *failed;
    return;
  }
  auto buffer = llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  if (!buffer) {
    job.error = "cannot read " + output;
    return;
  }
  job.fatbin = (*buffer)->getBuffer().str();
}

} // namespace

bool packKernelImages(ModuleOp module, unsigned jobs, KernelImageCounts &counts,
                      std::string &error) {
  std::string ptxas = findCudaTool("ptxas"),
              fatbinary = findCudaTool("fatbinary");
  if (ptxas.empty() || fatbinary.empty()) {
    error = std::string("the CUDA target needs the CUDA toolkit's ") +
            (ptxas.empty() ? "ptxas" : "fatbinary") +
            " (looked in $CUDA_HOME/bin, /usr/local/cuda/bin and PATH)";
    return false;
  }
  std::vector<KernelJob> kernels;
  WalkResult walk = module.walk([&](gpu::BinaryOp binary) {
    KernelJob job;
    job.binary = binary;
    std::array<bool, kPTXChips.size()> seen{};
    for (Attribute a : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      auto target = object ? dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget())
                           : NVVM::NVVMTargetAttr();
      if (!target || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      auto chip = llvm::find(kPTXChips, target.getChip());
      if (chip == kPTXChips.end())
        continue;
      job.ptx[chip - kPTXChips.begin()] = object.getObject().str();
      if (chip == kPTXChips.begin())
        job.target = target;
      seen[chip - kPTXChips.begin()] = true;
    }
    if (!llvm::all_of(seen, [](bool s) { return s; })) {
      error =
          "kernel " + binary.getSymName().str() + " has no PTX for every chip";
      return WalkResult::interrupt();
    }
    kernels.push_back(std::move(job));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return false;

  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("gptc-kernels", dir)) {
    error = "cannot create a temporary directory: " + ec.message();
    return false;
  }
  {
    llvm::DefaultThreadPool pool(
        jobs ? llvm::hardware_concurrency(jobs)
             : llvm::heavyweight_hardware_concurrency());
    for (size_t i = 0; i < kernels.size(); ++i)
      pool.async([&, i] {
        packOne(kernels[i], ptxas, fatbinary, dir, "k" + std::to_string(i));
      });
    pool.wait();
  }
  llvm::sys::fs::remove_directories(dir);

  for (KernelJob &job : kernels) {
    if (!job.error.empty()) {
      error = "kernel " + job.binary.getSymName().str() + ": " + job.error;
      return false;
    }
    MLIRContext *ctx = module.getContext();
    auto object = gpu::ObjectAttr::get(
        ctx, job.target, gpu::CompilationTarget::Fatbin,
        StringAttr::get(ctx, job.fatbin), nullptr, nullptr);
    job.binary.setObjectsAttr(ArrayAttr::get(ctx, {object}));
    ++counts.kernels;
    counts.cubins += kPTXChips.size();
    counts.fatbinBytes += job.fatbin.size();
  }
  return true;
}

} // namespace gptc
