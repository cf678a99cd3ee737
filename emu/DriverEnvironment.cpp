//===- DriverEnvironment.cpp - The emulated device's settings, checked ----===//
//
// The emulated device takes its settings from GPTC_EMU_* variables. A value
// it cannot use, or a name it does not know (a typo: GPTC_EMU_TRHEADS), is
// one line on stderr and cuInit fails (CUDA_ERROR_INVALID_VALUE), instead of
// the setting being ignored without a word.
//
//===----------------------------------------------------------------------===//

#include "emu/DriverState.h"

#include <cstdlib>
#include <cstring>
#include <string>

extern char **environ;

namespace gptc::emu {

namespace {

enum class Kind { Flag, PositiveInteger, PositiveNumber, Path };

struct Setting {
  const char *name;
  Kind kind;
};

constexpr Setting kSettings[] = {
    {"GPTC_EMU_THREADS", Kind::PositiveInteger},
    {"GPTC_EMU_WATCHDOG", Kind::PositiveInteger},
    {"GPTC_EMU_NCCL_TIMEOUT", Kind::PositiveNumber},
    {"GPTC_EMU_NCCL_HANG", Kind::PositiveInteger},
    {"GPTC_EMU_RACECHECK", Kind::Flag},
    {"GPTC_EMU_STATS", Kind::Flag},
    {"GPTC_EMU_PROFILE", Kind::Flag},
    {"GPTC_EMU_STATS_JSON", Kind::Path},
    {"GPTC_EMU_TRACE", Kind::Path},
    {"GPTC_EMU_CHECK_CORRUPT", Kind::PositiveInteger},
};

bool valid(Kind kind, const char *v) {
  char *end = nullptr;
  switch (kind) {
  case Kind::Flag:
    return !std::strcmp(v, "0") || !std::strcmp(v, "1");
  case Kind::PositiveInteger: {
    if (!*v)
      return false;
    unsigned long long n = std::strtoull(v, &end, 10);
    return *end == 0 && n > 0 && v[0] != '-';
  }
  case Kind::PositiveNumber: {
    double x = std::strtod(v, &end);
    return *v && *end == 0 && x > 0;
  }
  case Kind::Path:
    return *v != 0;
  }
  return false;
}

const char *expected(Kind kind) {
  switch (kind) {
  case Kind::Flag:
    return "0 or 1";
  case Kind::PositiveInteger:
    return "a positive integer";
  case Kind::PositiveNumber:
    return "a positive number (seconds)";
  case Kind::Path:
    return "a file name";
  }
  return "";
}

} // namespace

bool checkEnvironment(std::string &error) {
  for (char **e = environ; e && *e; ++e) {
    if (std::strncmp(*e, "GPTC_EMU_", 9) != 0)
      continue;
    const char *eq = std::strchr(*e, '=');
    std::string name(*e, eq ? size_t(eq - *e) : std::strlen(*e));
    const char *value = eq ? eq + 1 : "";
    const Setting *known = nullptr;
    for (const Setting &s : kSettings)
      if (name == s.name)
        known = &s;
    if (!known) {
      error = name + " is not a setting of the emulated device (they are:";
      for (const Setting &s : kSettings)
        error += std::string(" ") + s.name;
      error += "; docs/design/emu.md)";
      return false;
    }
    if (!valid(known->kind, value)) {
      error = name + "='" + value + "' is not " + expected(known->kind);
      return false;
    }
  }
  return true;
}

} // namespace gptc::emu
