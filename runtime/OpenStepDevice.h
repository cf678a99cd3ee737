//===- OpenStepDevice.h - The device a bundle's target runs on --*- C++ -*-===//
//
// The one place that maps a bundle's target to a StepDevice: the commands
// (train, sample) ask it and never name a device themselves. A new target
// adds its case here (and its device library to GPTCStepDevices).
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_OPENSTEPDEVICE_H
#define GPTC_RUNTIME_OPENSTEPDEVICE_H

#include "runtime/Manifest.h"
#include "runtime/StepDevice.h"

#include <memory>
#include <string>

namespace gptc {
namespace runtime {

/// The device `manifest`'s target runs on: the CPU, or CUDA device 0 (a
/// GPU's driver or the emulated device, whichever libcuda.so.1 the loader
/// finds; GPTC_CUDA_GRAPHS=0 launches kernel by kernel, GPTC_DEBUG_BUFFERS=1
/// places each buffer apart). Opened before the step library loads: a
/// CUDA step.so loads its kernels when it is loaded. Null with `error`
/// (one line naming the manifest) when the target is not supported by this
/// build or the device does not open.
std::unique_ptr<StepDevice> openStepDevice(const Manifest &manifest,
                                           std::string &error);

/// The same for the bundle directory `bundle` (its manifest.json read
/// first).
std::unique_ptr<StepDevice> openStepDevice(const std::string &bundle,
                                           std::string &error);

/// A job of device ranks communicates over the device's collectives (NCCL
/// for CUDA, bootstrapped over the job's MPI ranks); a CPU job, or one
/// rank, keeps the host's. False with `error` when the target has none
/// here.
bool joinDeviceRanks(const Manifest &manifest, std::string &error);

} // namespace runtime
} // namespace gptc

#endif // GPTC_RUNTIME_OPENSTEPDEVICE_H
