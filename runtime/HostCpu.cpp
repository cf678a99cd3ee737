//===- HostCpu.cpp - Whether this CPU runs a bundle's code ----------------===//

#include "runtime/HostCpu.h"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define GPTC_X86 1
#endif

namespace gptc {
namespace runtime {

namespace {

enum Register { EAX, EBX, ECX, EDX };

/// OS-enabled register state (XCR0) an extension needs besides its CPUID
/// bit: SSE's XMM, AVX's upper YMM halves, AVX-512's masks and ZMM, AMX's
/// tile configuration and data.
enum State : uint64_t {
  None = 0,
  Ymm = 0x6,
  Zmm = 0xe6,
  Tiles = 0x60000,
};

/// Where CPUID reports one LLVM x86 feature.
struct Feature {
  const char *name;
  unsigned leaf, subleaf;
  Register reg;
  unsigned bit;
  uint64_t state;
};

// clang-format off
const Feature kFeatures[] = {
    {"cx8", 1, 0, EDX, 8, None},         {"cmov", 1, 0, EDX, 15, None},
    {"mmx", 1, 0, EDX, 23, None},        {"fxsr", 1, 0, EDX, 24, None},
    {"sse", 1, 0, EDX, 25, None},        {"sse2", 1, 0, EDX, 26, None},
    {"sse3", 1, 0, ECX, 0, None},        {"pclmul", 1, 0, ECX, 1, None},
    {"ssse3", 1, 0, ECX, 9, None},       {"fma", 1, 0, ECX, 12, Ymm},
    {"cx16", 1, 0, ECX, 13, None},       {"sse4.1", 1, 0, ECX, 19, None},
    {"sse4.2", 1, 0, ECX, 20, None},     {"movbe", 1, 0, ECX, 22, None},
    {"popcnt", 1, 0, ECX, 23, None},     {"aes", 1, 0, ECX, 25, None},
    {"xsave", 1, 0, ECX, 26, None},      {"avx", 1, 0, ECX, 28, Ymm},
    {"f16c", 1, 0, ECX, 29, Ymm},        {"rdrnd", 1, 0, ECX, 30, None},
    {"fsgsbase", 7, 0, EBX, 0, None},    {"bmi", 7, 0, EBX, 3, None},
    {"avx2", 7, 0, EBX, 5, Ymm},         {"bmi2", 7, 0, EBX, 8, None},
    {"avx512f", 7, 0, EBX, 16, Zmm},     {"avx512dq", 7, 0, EBX, 17, Zmm},
    {"rdseed", 7, 0, EBX, 18, None},     {"adx", 7, 0, EBX, 19, None},
    {"avx512ifma", 7, 0, EBX, 21, Zmm},  {"clflushopt", 7, 0, EBX, 23, None},
    {"clwb", 7, 0, EBX, 24, None},       {"avx512cd", 7, 0, EBX, 28, Zmm},
    {"sha", 7, 0, EBX, 29, None},        {"avx512bw", 7, 0, EBX, 30, Zmm},
    {"avx512vl", 7, 0, EBX, 31, Zmm},    {"avx512vbmi", 7, 0, ECX, 1, Zmm},
    {"pku", 7, 0, ECX, 3, None},         {"waitpkg", 7, 0, ECX, 5, None},
    {"avx512vbmi2", 7, 0, ECX, 6, Zmm},  {"gfni", 7, 0, ECX, 8, None},
    {"vaes", 7, 0, ECX, 9, Ymm},         {"vpclmulqdq", 7, 0, ECX, 10, Ymm},
    {"avx512vnni", 7, 0, ECX, 11, Zmm},  {"avx512bitalg", 7, 0, ECX, 12, Zmm},
    {"avx512vpopcntdq", 7, 0, ECX, 14, Zmm},
    {"rdpid", 7, 0, ECX, 22, None},      {"movdiri", 7, 0, ECX, 27, None},
    {"movdir64b", 7, 0, ECX, 28, None},  {"serialize", 7, 0, EDX, 14, None},
    {"amx-bf16", 7, 0, EDX, 22, Tiles},  {"avx512fp16", 7, 0, EDX, 23, Zmm},
    {"amx-tile", 7, 0, EDX, 24, Tiles},  {"amx-int8", 7, 0, EDX, 25, Tiles},
    {"avxvnni", 7, 1, EAX, 4, Ymm},      {"avx512bf16", 7, 1, EAX, 5, Zmm},
    {"amx-fp16", 7, 1, EAX, 21, Tiles},  {"avxifma", 7, 1, EAX, 23, Ymm},
    {"xsaveopt", 0xd, 1, EAX, 0, None},  {"xsavec", 0xd, 1, EAX, 1, None},
    {"xsaves", 0xd, 1, EAX, 3, None},    {"sahf", 0x80000001, 0, ECX, 0, None},
    {"lzcnt", 0x80000001, 0, ECX, 5, None},
    {"sse4a", 0x80000001, 0, ECX, 6, None},
    {"prfchw", 0x80000001, 0, ECX, 8, None},
    {"xop", 0x80000001, 0, ECX, 11, Ymm},
    {"fma4", 0x80000001, 0, ECX, 16, Ymm},
    {"tbm", 0x80000001, 0, ECX, 21, None},
};
// clang-format on

const Feature *lookup(const std::string &name) {
  for (const Feature &f : kFeatures)
    if (name == f.name)
      return &f;
  return nullptr;
}

#ifdef GPTC_X86
/// The register state the operating system enabled (XCR0), or 0 without
/// OSXSAVE.
uint64_t enabledState() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27)))
    return 0;
  uint32_t lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}

bool has(const Feature &f) {
  unsigned r[4] = {0, 0, 0, 0};
  if (!__get_cpuid_count(f.leaf, f.subleaf, &r[EAX], &r[EBX], &r[ECX], &r[EDX]))
    return false;
  if (!(r[f.reg] & (1u << f.bit)))
    return false;
  static const uint64_t enabled = enabledState(); // XCR0 does not change
  return (enabled & f.state) == f.state;
}
#else
bool has(const Feature &) { return false; }
#endif

} // namespace

bool isCheckedCpuFeature(const std::string &feature) {
#ifdef GPTC_X86
  return lookup(feature) != nullptr;
#else
  (void)feature;
  return false;
#endif
}

std::vector<std::string>
missingCpuFeatures(const std::vector<std::string> &required) {
  std::vector<std::string> missing;
  for (const std::string &name : required)
    if (isCheckedCpuFeature(name) && !has(*lookup(name)))
      missing.push_back(name);
  return missing;
}

} // namespace runtime
} // namespace gptc
