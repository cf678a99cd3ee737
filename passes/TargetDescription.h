//===- TargetDescription.h - What a build generates code for ----*- C++ -*-===//
//
// One object that says which machine a build's kernels run on and how they
// are shaped; the pipeline asks it questions (does this build split long
// sums? keep scalars on the host?) instead of carrying flags.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_PASSES_TARGETDESCRIPTION_H
#define GPTC_PASSES_TARGETDESCRIPTION_H

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
  /// block per attention tile and per row of logits).
  bool shapesKernelsForGPU() const { return isCUDA(); }
  /// gptc-lower-to-linalg{tensor-cores}: with GPU-shaped kernels, the bf16
  /// attention on tensor cores (no CPU counterpart with the same buffers).
  bool usesTensorCores() const { return form_ == KernelForm::Native; }
  /// CUDA's stage-4 passes: a weight gradient's long sum over the tokens
  /// (gptc-split-k) and a reduction with few results
  /// (gptc-split-reductions) split to fill the device.
  bool splitsLongSums() const { return isCUDA() && !marksKernels(); }
  /// gptc-hoist-scalar-operands: a kernel's scalar operand read once on the
  /// host (the CPU's vector loops; a CUDA host cannot read device memory,
  /// but a paired build keeps the CPU's host structure).
  bool hoistsScalarOperands() const { return !isCUDA() || marksKernels(); }
  /// gptc-host-compute-to-device: the host's arithmetic on device values
  /// moved into kernels.
  bool movesHostComputeToDevice() const { return isCUDA() && !marksKernels(); }
  /// gptc-kernel-marks after the loops stage.
  bool marksKernels() const { return form_ == KernelForm::PairedWithCPU; }

private:
  Target target_;
  KernelForm form_;
};

} // namespace gptc

#endif // GPTC_PASSES_TARGETDESCRIPTION_H
