//===- OptionValue.h - "--opt VALUE" / "--opt=VALUE" parsing ---*- C++ -*-===//
//
// The argument parsing shared by `gptc data` and `gptc train`.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_RUNTIME_DATA_OPTIONVALUE_H
#define GPTC_RUNTIME_DATA_OPTIONVALUE_H

#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

namespace gptc::data {

/// Splits args[i] (an option) into its name and value, taking the value
/// from "--opt=VALUE" or from the next argument (advancing i). Returns
/// false after printing one error line (`me` prefix, `command` named in the
/// hint) for an option not in `known` or a missing value.
inline bool takeOptionValue(const std::vector<std::string> &args, size_t &i,
                            std::initializer_list<const char *> known,
                            const char *me, const char *command,
                            std::ostream &err, std::string &name,
                            std::string &value) {
  name = args[i];
  bool hasValue = false;
  size_t eq = name.find('=');
  if (name.compare(0, 2, "--") == 0 && eq != std::string::npos) {
    value = name.substr(eq + 1);
    name = name.substr(0, eq);
    hasValue = true;
  }
  bool isKnown = false;
  for (const char *k : known)
    isKnown |= name == k;
  if (!isKnown) {
    err << me << "error: unknown option '" << args[i] << "' (see gptc "
        << command << " --help)\n";
    return false;
  }
  if (!hasValue) {
    if (i + 1 == args.size()) {
      err << me << "error: " << name << " needs a value\n";
      return false;
    }
    value = args[++i];
  }
  return true;
}

} // namespace gptc::data

#endif // GPTC_RUNTIME_DATA_OPTIONVALUE_H
