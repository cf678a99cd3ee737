//===- CommandOptions.h - The option parser of gptc's commands --*- C++ -*-===//
//
// `gptc train` and `gptc data` declare their options in a table and parse
// their arguments with this one parser:
//   - "--opt VALUE" and "--opt=VALUE"; "--" ends the options;
//   - an option not in the table is an error naming the closest known one;
//   - a single-valued option given twice is an error (never "last wins");
//   - numbers are parsed strictly: decimal digits only (or, where allowed,
//     a plain decimal float such as 1e8 that is a whole number), no sign,
//     no spaces, no hexadecimal;
// every error is one line "gptc CMD: error: ..." and exit code 2.
// (`check` and `compile` use llvm::cl, which also carries MLIR's own
// --mlir-* options.)
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_COMMANDOPTIONS_H
#define GPTC_COMMANDS_COMMANDOPTIONS_H

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace gptc::cli {

enum class ValueKind {
  None,     ///< a flag
  String,   ///< one value
  Repeated, ///< any number of values, in order
};

struct OptionSpec {
  const char *name;  ///< "--steps"
  const char *alias; ///< "-o", or null
  ValueKind kind;
};

/// The parsed arguments of one command.
class ParsedOptions {
public:
  bool has(const std::string &name) const { return values.count(name) != 0; }
  /// The value of a single-valued option, if given.
  std::optional<std::string> get(const std::string &name) const;
  /// Every value of a repeated option, in command-line order.
  std::vector<std::string> all(const std::string &name) const;

  std::vector<std::string> positionals;
  std::map<std::string, std::vector<std::string>> values;
};

/// Parses `args` (after the command name) against `table`. "-h"/"--help"
/// sets `help`. Returns false after printing one error line to `err`.
bool parseOptions(const std::vector<std::string> &args,
                  const std::vector<OptionSpec> &table,
                  const std::string &command, std::ostream &err,
                  ParsedOptions &out, bool &help);

/// A non-negative integer: decimal digits only, at most 9e15. With
/// `allowExponent`, also a decimal float that is a whole number (1e6).
std::optional<int64_t> parseCount(const std::string &s,
                                  bool allowExponent = true);

/// A finite decimal number (no hexadecimal, no spaces, no "inf"/"nan").
std::optional<double> parseNumber(const std::string &s);

} // namespace gptc::cli

#endif // GPTC_COMMANDS_COMMANDOPTIONS_H
