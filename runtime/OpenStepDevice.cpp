//===- OpenStepDevice.cpp - The device a bundle's target runs on ----------===//

#include "runtime/OpenStepDevice.h"

#include "runtime/comm/Collectives.h"

#ifdef GPTC_HAVE_CUDA_RUNTIME
#include "runtime/cuda/CudaStepDevice.h"
#include "runtime/cuda/NcclBackend.h"
#endif

#include <cstdlib>

namespace gptc {
namespace runtime {

#ifdef GPTC_HAVE_CUDA_RUNTIME
/// CUDA device 0. Each entry point a CUDA graph, replayed every step, its
/// NCCL collectives captured with it (on a communication stream forked
/// from the step's and joined back); GPTC_CUDA_GRAPHS=0 launches kernel
/// by kernel (with CUDA_LAUNCH_BLOCKING=1, to find a failing one).
/// GPTC_DEBUG_BUFFERS=1: every buffer in an allocation of its own, so that
/// a kernel writing past one is reported (kernel by kernel).
static std::unique_ptr<StepDevice> openCudaDevice(const Manifest &,
                                                  std::string &error) {
  cuda::CudaDevice *device = cuda::CudaDevice::open(error);
  if (!device)
    return nullptr;
  auto stepDevice = std::make_unique<cuda::CudaStepDevice>(*device);
  const char *graphs = std::getenv("GPTC_CUDA_GRAPHS");
  const char *apart = std::getenv("GPTC_DEBUG_BUFFERS");
  bool debugBuffers = apart && *apart && std::string(apart) != "0";
  stepDevice->placeBuffersApart(debugBuffers);
  stepDevice->useGraphs(!debugBuffers &&
                        !(graphs && std::string(graphs) == "0"));
  return stepDevice;
}
#endif

std::unique_ptr<StepDevice> openStepDevice(const Manifest &m,
                                           std::string &error) {
#ifdef GPTC_CUDA_ONLY_RUNNER
  // gptc-run has no CPU GEMMs (runtime/runner/CudaOnlyHost.cpp).
  if (m.target == "cpu") {
    error = m.path + ": target: 'cpu': gptc-run runs CUDA bundles; train a "
                     "CPU bundle with gptc";
    return nullptr;
  }
#endif
  if (m.target == "cpu")
    return std::make_unique<HostStepDevice>();
#ifdef GPTC_HAVE_CUDA_RUNTIME
  if (m.target == "cuda")
    return openCudaDevice(m, error);
#endif
  error =
      m.path + ": target: '" + m.target + "' is not supported by this runtime";
  return nullptr;
}

std::unique_ptr<StepDevice> openStepDevice(const std::string &bundle,
                                           std::string &error) {
  Manifest m;
  if (!readManifest(bundle + "/manifest.json", m, error))
    return nullptr;
  return openStepDevice(m, error);
}

bool joinDeviceRanks(const Manifest &m, std::string &error) {
  comm::Collectives &ranks = comm::Collectives::get();
  if (m.target == "cpu" || ranks.size() == 1)
    return true;
#ifdef GPTC_HAVE_CUDA_RUNTIME
  if (m.target == "cuda") {
    std::unique_ptr<comm::Backend> host = ranks.swapBackend(nullptr);
    std::unique_ptr<comm::Backend> nccl =
        cuda::makeNcclBackend(host, *cuda::CudaDevice::current(), error);
    const bool joined = nccl != nullptr;
    ranks.swapBackend(joined ? std::move(nccl) : std::move(host));
    return joined;
  }
#endif
  error = m.path + ": target: '" + m.target + "' has no collectives here";
  return false;
}

} // namespace runtime
} // namespace gptc
