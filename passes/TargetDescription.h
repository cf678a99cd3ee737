//===- TargetDescription.h - What a build generates code for ----*- C++ -*-===//
//
// One object that says which machine a build's kernels run on and how they
// are shaped; the pipeline asks it questions (does this build split long
// sums? keep scalars on the host?) instead of carrying flags. Below it the
// table of targets: a new target is a value of Target and a row
// (docs/extending.md).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_TARGETDESCRIPTION_H
#define GPTC_PASSES_TARGETDESCRIPTION_H

// Each target's pipelines, for the table below.
#include "passes/CPU/CPUPipeline.h"
#include "passes/GPU/CUDAPipeline.h"

#include "llvm/ADT/ArrayRef.h"

namespace gptc {

/// The machine a build's kernels run on (gptc compile --target).
enum class Target { CPU, CUDA };

/// How a build's kernels are shaped.
enum class KernelForm {
  /// The target's own kernels: on CUDA tensor-core attention, long sums
  /// split over the device, scalars read by the kernels themselves.
  Native,
  /// Every kernel nest one-to-one with the CPU build's, bracketed by
  /// gptc_kernel_mark(ID, 0|1) calls (gptc compile --kernel-marks):
  /// gptc-emu-check compares each kernel's arena writes between a CPU and
  /// a CUDA bundle.
  PairedWithCPU,
};

class TargetDescription {
public:
  constexpr TargetDescription(Target target = Target::CPU,
                              KernelForm form = KernelForm::Native)
      : target_(target), form_(form) {}

  Target target() const { return target_; }
  KernelForm form() const { return form_; }
  bool isCUDA() const { return target_ == Target::CUDA; }
  /// The name --target takes: "cpu" or "cuda".
  const char *name() const;

  /// gptc-lower-to-linalg{gpu-kernels}: kernels shaped for a GPU (a thread
  /// block per attention tile and per row of logits; TargetInfo).
  bool shapesKernelsForGPU() const;
  /// gptc-lower-to-linalg{tensor-cores}: with GPU-shaped kernels, the bf16
  /// attention on tensor cores (no CPU counterpart with the same buffers).
  bool usesTensorCores() const { return form_ == KernelForm::Native; }
  /// CUDA's stage-4 passes: a weight gradient's long sum over the tokens
  /// (gptc-split-k) and a reduction with few results
  /// (gptc-split-reductions) split to fill the device.
  bool splitsLongSums() const {
    return shapesKernelsForGPU() && !marksKernels();
  }
  /// gptc-hoist-scalar-operands: a kernel's scalar operand read once on the
  /// host (the CPU's vector loops; a CUDA host cannot read device memory,
  /// but a paired build keeps the CPU's host structure).
  bool hoistsScalarOperands() const {
    return !shapesKernelsForGPU() || marksKernels();
  }
  /// gptc-host-compute-to-device: the host's arithmetic on device values
  /// moved into kernels.
  bool movesHostComputeToDevice() const {
    return shapesKernelsForGPU() && !marksKernels();
  }
  /// gptc-kernel-marks after the loops stage.
  bool marksKernels() const { return form_ == KernelForm::PairedWithCPU; }

private:
  Target target_;
  KernelForm form_;
};

/// One target of gptc compile --target: its name, what it generates and
/// the pipelines that generate it. A new target is a row (and its folder
/// of passes: docs/extending.md).
struct TargetInfo {
  Target target;
  /// --target's value, the manifest's `target`.
  const char *name;
  /// --target's help.
  const char *description;
  /// Kernels shaped for a GPU: thread blocks, shared tiles, tensor cores,
  /// long sums split over the device, scalars read on the device.
  bool gpuKernels;
  /// Stage 7: a module at Stage::Loops to Stage::LLVM.
  void (*buildCodegen)(mlir::OpPassManager &pm,
                       const TargetDescription &target);
  /// Stage 8, the kernels' binaries (PTX); null: the target has none.
  void (*buildBinaries)(mlir::OpPassManager &pm);
};

/// Every target, in the order of Target's values.
inline llvm::ArrayRef<TargetInfo> targetTable() {
  static const TargetInfo table[] = {
      {Target::CPU, "cpu", "the host CPU (OpenMP + BLAS), the default",
       /*gpuKernels=*/false, buildCPUCodegenPipeline, nullptr},
      {Target::CUDA, "cuda", "NVIDIA GPUs: the same kernels as gpu.launch, PTX",
       /*gpuKernels=*/true, buildCUDACodegenPipeline, buildPTXPipeline},
  };
  return table;
}

/// `target`'s row.
const TargetInfo &targetInfo(Target target);

/// A command-line option modifier (like llvm::cl::values) that makes the
/// targets of targetTable() the option's values.
struct TargetValues {
  template <class Opt> void apply(Opt &option) const {
    for (const TargetInfo &info : targetTable())
      option.getParser().addLiteralOption(info.name, info.target,
                                          info.description);
  }
};

} // namespace gptc

#endif // GPTC_PASSES_TARGETDESCRIPTION_H
