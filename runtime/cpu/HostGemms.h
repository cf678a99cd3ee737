//===- HostGemms.h - What a CPU bundle's GEMMs run on -----------*- C++ -*-===//

#ifndef GPTC_RUNTIME_CPU_HOSTGEMMS_H
#define GPTC_RUNTIME_CPU_HOSTGEMMS_H

#include <string>

namespace gptc {
namespace runtime {

/// For the run's first line: what a CPU bundle's GEMMs run on (gptc's own
/// kernels where the CPU has the instructions: f32 on AVX-512; bf16 on AMX
/// or AVX512_BF16, else widened to the f32 path; the rest on OpenBLAS's
/// kernels, its choice for this CPU or OPENBLAS_CORETYPE's) and the OpenMP
/// threads of kernels and GEMMs. "f32 gptc AVX-512, bf16 gptc AMX, f64
/// OpenBLAS SAPPHIRERAPIDS kernels | 2 threads".
std::string describeHostGemms();

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_CPU_HOSTGEMMS_H
