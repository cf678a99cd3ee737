//===- ParamFile.h - Trained parameters to a file ---------------*- C++ -*-===//
//
// `gptc train --save-params FILE` writes every parameter after the last
// step, in manifest order, as float32 (little-endian):
//
//   "GPTCPAR1"  u32 count
//   per parameter: u32 name length, name bytes, u32 rank, i64 dims[rank],
//                  f32 values[prod(dims)]
//
// The file is written to a temporary sibling, fsynced and renamed over
// FILE (runtime/Files.h), so a reader never sees half a file and an old
// FILE survives a failed write or a crash.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_PARAMFILE_H
#define GPTC_RUNTIME_PARAMFILE_H

#include "runtime/Arena.h"
#include "runtime/Manifest.h"

#include <string>

namespace gptc::runtime {

/// Writes the param.* slots of `arena` to `path`; false with `error` set.
bool saveParams(const Manifest &manifest, const Arena &arena,
                const std::string &path, std::string &error);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_PARAMFILE_H
