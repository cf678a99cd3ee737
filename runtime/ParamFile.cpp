//===- ParamFile.cpp - Trained parameters to a file -----------------------===//

#include "runtime/ParamFile.h"

#include "runtime/Files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace gptc::runtime {

namespace {

template <typename T> void put(std::vector<char> &out, T v) {
  const char *p = reinterpret_cast<const char *>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

} // namespace

bool saveParams(const Manifest &manifest, const Arena &arena,
                const std::string &path, std::string &error) {
  std::vector<char> bytes = {'G', 'P', 'T', 'C', 'P', 'A', 'R', '1'};
  put<uint32_t>(bytes, static_cast<uint32_t>(manifest.params.size()));
  for (const ParamEntry &p : manifest.params) {
    const Slot *slot = manifest.findSlot("param." + p.name);
    if (!slot) {
      error = manifest.path + ": no slot param." + p.name;
      return false;
    }
    put<uint32_t>(bytes, static_cast<uint32_t>(p.name.size()));
    bytes.insert(bytes.end(), p.name.begin(), p.name.end());
    put<uint32_t>(bytes, static_cast<uint32_t>(p.shape.size()));
    int64_t count = 1;
    for (int64_t d : p.shape) {
      put<int64_t>(bytes, d);
      count *= d;
    }
    for (int64_t i = 0; i < count; ++i)
      put<float>(bytes, static_cast<float>(arena.element(*slot, i)));
  }
  return writeFileAtomically(
      path,
      [&](std::FILE *f, std::string &err) {
        if (std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size())
          return true;
        err = "cannot write " + path + ": " + std::strerror(errno);
        return false;
      },
      error);
}

} // namespace gptc::runtime
