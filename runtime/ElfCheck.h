//===- ElfCheck.h - A shared library whole before dlopen --------*- C++ -*-===//
//
// dlopen maps a library's segments as its program headers say, without
// comparing them to the file's size: a truncated step.so (a copy cut
// short, a full disk) is mapped past its end and the first touch of a
// missing page is SIGBUS -- no error line, no exit code of ours. So
// before any dlopen gptc reads the ELF headers and checks that the file is
// a 64-bit little-endian shared object for this machine and that every
// program header, loadable segment and section header lies inside it.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_ELFCHECK_H
#define GPTC_RUNTIME_ELFCHECK_H

#include <string>

namespace gptc::runtime {

/// False with one `error` line naming `path` when the file is not a whole
/// ELF shared object for this machine.
bool checkCompleteSharedObject(const std::string &path, std::string &error);

} // namespace gptc::runtime

#endif // GPTC_RUNTIME_ELFCHECK_H
