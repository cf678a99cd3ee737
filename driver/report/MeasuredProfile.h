//===- MeasuredProfile.h - What the emulated device measured ----*- C++ -*-===//
//
// `gptc compile --target=cuda --stats --profile FILE`: FILE is what the
// emulated device counted in one training step of the same spec at a
// scaled-down shape (GPTC_EMU_STATS_JSON, with the SASS per PTX instruction
// that scripts/sass-count.py --annotate read from the cubins;
// scripts/measure-step.sh makes it). A kernel's measured ratios -- which do
// not depend on the shape: sectors per byte requested, reuse, wavefronts per
// shared byte, active lanes, SASS per PTX instruction -- turn the static
// counts of the full shape into the sectors, wavefronts and SASS the
// hardware sees (docs/design/cuda.md, "The measured model").
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_MEASUREDPROFILE_H
#define GPTC_DRIVER_REPORT_MEASUREDPROFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace gptc::report {

/// One kernel's measured ratios (all launches of the profiled step).
struct MeasuredKernel {
  /// Active lanes per executed PTX warp-instruction over the lanes its
  /// blocks' warps have (1: no divergence; a block of 8 threads alone is 8
  /// lanes of 32 and still 1): what divergence leaves of a warp.
  double convergence = 1;
  /// Executed SASS per executed PTX warp-instruction (sass-count.py's).
  double sassPerPtx = 1;
  /// Bytes of the 32-byte sectors global requests touch per byte the lanes
  /// requested (1: every sector fully used by one request; 16: a 2-byte
  /// lane alone in its sector).
  double sectorBytesPerByte = 1;
  /// Sectors requested over distinct sectors: what a cache holding the
  /// whole launch would spare DRAM.
  double reuse = 1;
  /// Shared wavefronts per 128 bytes of shared traffic (1: conflict-free).
  double sharedConflict = 1;
  /// Executed integer divisions and IEEE f32 div/sqrt/rcp (32- and 64-bit
  /// sequences: subroutines of ~20-70 SASS) per executed PTX instruction.
  double divisionShare = 0;
  /// For the report.
  double loadSectorsPerRequest = 0, storeSectorsPerRequest = 0;
  double wavefrontsPerRequest = 0;
};

/// A kernel's code up to its constants: how many times each mnemonic
/// (opcode and modifiers) stands in its PTX (guards, operands, labels,
/// directives and operand lines dropped). A scaled-down shape changes a
/// kernel's constants, the order of a few parameter loads, now and then a
/// division that a constant made a shift, and -- through the merging of
/// identical kernels -- its name's suffix: profiles are matched by these
/// counts, not by name. scripts/sass-count.py counts the same (the tests
/// hold the two to every kernel of a bundle).
using Mnemonics = std::map<std::string, int64_t>;
Mnemonics ptxMnemonics(llvm::StringRef ptx);

/// How alike two kernels' code is: 1 - (mnemonics in one and not the
/// other) / (mnemonics in both), 1 for the same counts.
double similarity(const Mnemonics &a, const Mnemonics &b);

struct MeasuredProfile {
  std::string path;
  std::string shape; ///< how the profiled step was scaled, as recorded
  struct Entry {
    std::string name;
    Mnemonics mnemonics;
    MeasuredKernel kernel;
  };
  std::vector<Entry> kernels;
  /// The kernel measured with the same mnemonics (of the same base name --
  /// the name without its _N suffix -- first), else the most alike one of
  /// the same base name at a similarity of at least 0.8 (`exact` says
  /// which); null when none.
  const MeasuredKernel *find(llvm::StringRef name, const Mnemonics &code,
                             bool &exact) const;
};

/// Reads a profile; errors name the file and what is wrong.
llvm::Expected<MeasuredProfile> loadMeasuredProfile(llvm::StringRef path);

} // namespace gptc::report

#endif // GPTC_DRIVER_REPORT_MEASUREDPROFILE_H
