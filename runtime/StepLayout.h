//===- StepLayout.h - The layout descriptor a step library exports -*- C++
//-*-===//
//
// A compiled step library (step.so) proves which arena it was compiled for:
// it exports two NUL-terminated strings,
//
//   gptc_step_layout          the layout descriptor text (below)
//   gptc_step_layout_sha256   the SHA-256 of that text, 64 hex digits
//
// and the bundle's manifest.json carries the same hash (`layout_sha256`)
// beside the arena size, workspace and slots it describes. The runtime
// rebuilds the text from the manifest and compares it with the library's,
// line by line, so that a manifest and a step.so of different compiles are
// refused with one line naming the field that differs.
//
// The text, one item per line ('\n'-terminated):
//
//   gptc-layout/1
//   arena_bytes 1234567
//   workspace 913408 321159            (offset, bytes)
//   slot tokens 0 i32 4x128            (name, offset, dtype, shape; a 0-d
//   slot step 4096 i64 -                slot's shape is "-")
//   ...                                 (slots in arena order)
//
// Header-only (LLVM's SHA-256): the compiler (gptc-export-layout) and the
// runtime both include it, and neither links the other.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_STEPLAYOUT_H
#define GPTC_RUNTIME_STEPLAYOUT_H

#include "runtime/Sha256.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gptc {
namespace layout {

constexpr const char *kLayoutSymbol = "gptc_step_layout";
constexpr const char *kLayoutHashSymbol = "gptc_step_layout_sha256";
constexpr const char *kLayoutFormat = "gptc-layout/1";
/// The SHA-256 of the bundle's manifest as the compiler rendered it, with
/// its step_library entry blank (runtime::manifestBodySha256): the library
/// vouches for every field of its manifest, not only the layout.
constexpr const char *kManifestHashSymbol = "gptc_step_manifest_sha256";

struct SlotLine {
  std::string name;
  int64_t offset = 0;
  std::string dtype; ///< i32, i64, f32, f64, bf16
  std::vector<int64_t> shape;
};

/// "4x128", or "-" for a 0-d shape.
inline std::string shapeText(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "-";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

/// The descriptor text of an arena. `slots` must be in arena order.
inline std::string layoutText(int64_t arenaBytes, int64_t workspaceOffset,
                              int64_t workspaceBytes,
                              const std::vector<SlotLine> &slots) {
  std::string t = std::string(kLayoutFormat) + "\n";
  t += "arena_bytes " + std::to_string(arenaBytes) + "\n";
  t += "workspace " + std::to_string(workspaceOffset) + " " +
       std::to_string(workspaceBytes) + "\n";
  for (const SlotLine &s : slots)
    t += "slot " + s.name + " " + std::to_string(s.offset) + " " + s.dtype +
         " " + shapeText(s.shape) + "\n";
  return t;
}

/// The SHA-256 of a descriptor text, 64 lowercase hex digits.
inline std::string layoutHash(const std::string &text) {
  return sha256Hex(text.data(), text.size());
}

} // namespace layout
} // namespace gptc

#endif // GPTC_RUNTIME_STEPLAYOUT_H
