//===- HostCpu.h - Whether this CPU runs a bundle's code --------*- C++ -*-===//
//
// A bundle's step.so is compiled for one CPU (gptc compile --cpu, default
// the compiling machine's own) and may use every instruction set extension
// that CPU has; manifest.json lists them under host_cpu.features, in
// LLVM's names ("avx2", "avx512bf16", "amx-tile", ...). Run on a CPU
// without one of them, the step would die of SIGILL at the first such
// instruction. openBundle() asks missingCpuFeatures() first and refuses
// the bundle in one line that names what is missing.
//
// The answer comes from CPUID, and for the extensions with their own
// register state (AVX's YMM, AVX-512's ZMM and masks, AMX's tiles) also
// from XCR0: the operating system must have enabled that state. Names
// this file does not know (LLVM's tuning flags such as "fast-gather",
// extensions of other architectures) are not checked.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_HOSTCPU_H
#define GPTC_RUNTIME_HOSTCPU_H

#include <string>
#include <vector>

namespace gptc {
namespace runtime {

/// The features of `required` this CPU lacks, in their order.
std::vector<std::string>
missingCpuFeatures(const std::vector<std::string> &required);

/// Whether missingCpuFeatures() can tell if this CPU has `feature`.
bool isCheckedCpuFeature(const std::string &feature);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_HOSTCPU_H
