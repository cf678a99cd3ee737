//===- TargetDescription.cpp - What a build generates code for ------------===//

#include "passes/TargetDescription.h"

namespace gptc {

const char *TargetDescription::name() const {
  switch (target_) {
  case Target::CPU:
    return "cpu";
  case Target::CUDA:
    return "cuda";
  }
  return "?";
}

} // namespace gptc
