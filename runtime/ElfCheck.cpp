//===- ElfCheck.cpp - A shared library whole before dlopen ----------------===//

#include "runtime/ElfCheck.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace gptc::runtime {

namespace {

/// Reads `bytes` at `offset` of `fd` whole.
bool readAt(int fd, void *into, size_t bytes, uint64_t offset) {
  size_t done = 0;
  while (done < bytes) {
    ssize_t n = ::pread(fd, static_cast<char *>(into) + done, bytes - done,
                        off_t(offset + done));
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

bool inside(uint64_t offset, uint64_t bytes, uint64_t size) {
  return offset <= size && bytes <= size - offset;
}

} // namespace

bool checkCompleteSharedObject(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file";
    return false;
  }
  const uint64_t size = uint64_t(st.st_size);
  auto bad = [&](const std::string &why) {
    error = path + ": not a whole shared library (" + why +
            "); not loading it (recompile the bundle)";
    return false;
  };
  Elf64_Ehdr h;
  if (size < sizeof h || !readAt(fd, &h, sizeof h, 0))
    return bad(std::to_string(size) + " bytes, shorter than an ELF header");
  if (std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
    return bad("no ELF magic");
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB)
    return bad("not 64-bit little-endian");
  if (h.e_type != ET_DYN)
    return bad("not a shared object");
#if defined(__x86_64__)
  if (h.e_machine != EM_X86_64)
    return bad("built for another machine (e_machine " +
               std::to_string(h.e_machine) + ")");
#elif defined(__aarch64__)
  if (h.e_machine != EM_AARCH64)
    return bad("built for another machine (e_machine " +
               std::to_string(h.e_machine) + ")");
#endif
  if (h.e_phentsize != sizeof(Elf64_Phdr) || h.e_phnum == 0 ||
      !inside(h.e_phoff, uint64_t(h.e_phnum) * sizeof(Elf64_Phdr), size))
    return bad("its program headers are past the end of the file (" +
               std::to_string(size) + " bytes)");
  std::vector<Elf64_Phdr> segments(h.e_phnum);
  if (!readAt(fd, segments.data(), segments.size() * sizeof(Elf64_Phdr),
              h.e_phoff))
    return bad("its program headers cannot be read");
  for (const Elf64_Phdr &p : segments)
    if (p.p_type == PT_LOAD && !inside(p.p_offset, p.p_filesz, size))
      return bad("a loadable segment ends at byte " +
                 std::to_string(p.p_offset + p.p_filesz) + ", past the end " +
                 "of the file (" + std::to_string(size) + " bytes)");
  if (h.e_shoff != 0 &&
      (h.e_shentsize != sizeof(Elf64_Shdr) ||
       !inside(h.e_shoff, uint64_t(h.e_shnum) * sizeof(Elf64_Shdr), size)))
    return bad("its section headers are past the end of the file (" +
               std::to_string(size) + " bytes)");
  return true;
}

} // namespace gptc::runtime
