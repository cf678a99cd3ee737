//===- TargetDescription.cpp - What a build generates code for ------------===//

#include "passes/TargetDescription.h"

#include <cassert>

namespace gptc {

const TargetInfo &targetInfo(Target target) {
  const TargetInfo &info = targetTable()[size_t(target)];
  assert(info.target == target && "targetTable() is in Target order");
  return info;
}

const char *TargetDescription::name() const { return targetInfo(target_).name; }

bool TargetDescription::shapesKernelsForGPU() const {
  return targetInfo(target_).gpuKernels;
}

} // namespace gptc
