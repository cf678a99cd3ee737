//===- CudaOnlyHost.cpp - gptc-run's host: no CPU GEMMs, one rank ---------===//
//
// gptc-run (tools/gptc-run) trains and samples CUDA bundles on a machine
// without gptc's compiler, OpenBLAS or MPI: what the full runtime does with
// those, it does here with nothing. openStepDevice refuses a CPU bundle
// (GPTC_CUDA_ONLY_RUNNER), so a CPU bundle's GEMM and SVD callbacks are
// never called (if one were, it would stop the run with one line naming
// gptc), and the job is always one rank: a process mpirun started is
// refused.
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Backend.h"
#include "runtime/cpu/HostGemms.h"
#include "runtime/gptrt.h"

#include <cstdio>
#include <cstdlib>

namespace gptc {
namespace runtime {

std::string describeHostGemms() {
  return "none (gptc-run runs CUDA bundles; CPU bundles train with gptc)";
}

namespace comm {

std::unique_ptr<Backend> makeMpiBackend(std::string &error) {
  error = "gptc-run has no MPI: it trains on one rank (several ranks train "
          "with gptc)";
  return nullptr;
}

} // namespace comm
} // namespace runtime
} // namespace gptc

namespace {
[[noreturn]] void noHostMath(const char *what) {
  std::fprintf(stderr,
               "gptc-run: error: %s is a CPU bundle's callback; gptc-run "
               "runs CUDA bundles (train CPU bundles with gptc)\n",
               what);
  std::exit(1);
}
} // namespace

extern "C" {
void gptc_gemm_f32(GPTC_GEMM_ARGS(float)) { noHostMath("gptc_gemm_f32"); }
void gptc_gemm_f64(GPTC_GEMM_ARGS(double)) { noHostMath("gptc_gemm_f64"); }
void gptc_gemm_bf16(GPTC_GEMM_ARGS(float)) { noHostMath("gptc_gemm_bf16"); }
void gptc_gemm_bf16_f32(GPTC_GEMM_ARGS(float)) {
  noHostMath("gptc_gemm_bf16_f32");
}
void _mlir_ciface_gptc_svd_orthogonalize_f32(gptc_matrices_f32 *,
                                             gptc_matrices_f32 *) {
  noHostMath("the SVD backend");
}
void _mlir_ciface_gptc_svd_orthogonalize_f64(gptc_matrices_f64 *,
                                             gptc_matrices_f64 *) {
  noHostMath("the SVD backend");
}
} // extern "C"
