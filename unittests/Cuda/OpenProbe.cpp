//===- OpenProbe.cpp - Opens the CUDA device and says how it went ---------===//
//
// Prints the device's description, or CudaDevice::open's error, on stdout;
// exits 0 if the device opened. The no-driver test runs it with an
// LD_LIBRARY_PATH where no libcuda.so.1 is.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/CudaDevice.h"

#include <cstdio>

int main() {
  std::string error;
  auto *device = gptc::runtime::cuda::CudaDevice::open(error);
  std::printf("%s\n", device ? device->description().c_str() : error.c_str());
  return device ? 0 : 1;
}
