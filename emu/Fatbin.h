//===- Fatbin.h - The PTX of a fatbinary image ------------------*- C++ -*-===//
//
// cuModuleLoadData takes PTX text, a cubin or a fatbinary (what nvcc and
// `fatbinary` make: cubins and PTX for several architectures). The
// emulated device runs PTX only: from a fatbinary it takes the PTX a real
// driver would JIT-compile on an sm_90 device without a cubin of its own,
// the newest architecture not newer than the device's.
//
// The container (little-endian), as `fatbinary` writes it (CUDA 12-13):
//   header  u32 magic 0xBA55ED50, u16 version 1, u16 header size,
//           u64 bytes of entries after the header
//   entry   u16 kind (1 PTX, 2 ELF), u16, u32 entry header size,
//           u64 payload size, u32 compressed size, u32, u16 minor,
//           u16 major, u32 arch (80 for sm_80), u32 name offset,
//           u32 name size, u64 flags, u64, u64 uncompressed size;
//           the payload follows the entry header (PTX NUL-padded).
// Compressed entries (a flag of 0xA000, or an uncompressed size) are
// refused: gptc packs its kernels uncompressed.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_EMU_FATBIN_H
#define GPTC_EMU_FATBIN_H

#include <cstddef>
#include <string>

namespace gptc::emu {

/// Whether `image` starts with a fatbinary's magic.
bool isFatbin(const void *image);

/// The PTX of the fatbinary `image` for a device of architecture
/// `deviceArch` (90 for sm_90): the newest PTX entry not newer than it.
/// False with `error` when there is none, an entry is compressed, or the
/// container is malformed. The image's size is the header's own.
bool ptxOfFatbin(const void *image, unsigned deviceArch, std::string &ptx,
                 std::string &error);

} // namespace gptc::emu

#endif // GPTC_EMU_FATBIN_H
