//===- CommandOptions.cpp - The option parser of gptc's commands ----------===//

#include "commands/CommandOptions.h"
#include "runtime/ErrorLine.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gptc::cli {

std::optional<std::string> ParsedOptions::get(const std::string &name) const {
  auto it = values.find(name);
  if (it == values.end() || it->second.empty())
    return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedOptions::all(const std::string &name) const {
  auto it = values.find(name);
  return it == values.end() ? std::vector<std::string>() : it->second;
}

namespace {

const OptionSpec *find(const std::vector<OptionSpec> &table,
                       const std::string &name) {
  for (const OptionSpec &o : table)
    if (name == o.name || (o.alias && name == o.alias))
      return &o;
  return nullptr;
}

std::string suggestion(const std::vector<OptionSpec> &table,
                       const std::string &name) {
  const char *best = nullptr;
  size_t bestDistance = 3; // at most two edits away
  for (const OptionSpec &o : table) {
    size_t d = llvm::StringRef(name).edit_distance(o.name);
    if (d < bestDistance)
      bestDistance = d, best = o.name;
  }
  return best ? std::string("; did you mean ") + best + "?" : "";
}

bool isDigits(const std::string &s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

std::optional<double> parseNumber(const std::string &s) {
  // Digits, one '.', an exponent: what strtod reads, minus its leniency
  // (leading spaces, hexadecimal, inf and nan).
  if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::optional<int64_t> parseCount(const std::string &s, bool allowExponent) {
  constexpr int64_t kMax = 9000000000000000; // 9e15
  if (isDigits(s)) {
    if (s.size() > 16)
      return std::nullopt;
    int64_t v = std::strtoll(s.c_str(), nullptr, 10);
    return v <= kMax ? std::optional<int64_t>(v) : std::nullopt;
  }
  if (!allowExponent || s[0] == '-' || s[0] == '+')
    return std::nullopt;
  std::optional<double> d = parseNumber(s);
  if (!d || *d < 0 || *d > double(kMax) || *d != std::floor(*d))
    return std::nullopt;
  return int64_t(*d);
}

bool parseOptions(const std::vector<std::string> &args,
                  const std::vector<OptionSpec> &table,
                  const std::string &command, std::ostream &err,
                  ParsedOptions &out, bool &help) {
  const std::string me = runtime::errorPrefix("gptc " + command + ": ");
  help = false;
  bool onlyPositionals = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (onlyPositionals || arg == "-" || arg.empty() || arg[0] != '-') {
      out.positionals.push_back(arg);
      continue;
    }
    if (arg == "--") {
      onlyPositionals = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      help = true;
      continue;
    }
    std::string name = arg, value;
    bool inlineValue = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inlineValue = true;
    }
    const OptionSpec *spec = find(table, name);
    if (!spec) {
      err << me << "unknown option '" << name << "'" << suggestion(table, name)
          << " (see gptc " << command << " --help)\n";
      return false;
    }
    std::vector<std::string> &slot = out.values[spec->name];
    if (spec->kind == ValueKind::None) {
      if (inlineValue) {
        err << me << name << " takes no value\n";
        return false;
      }
      value = "1";
    } else if (!inlineValue) {
      if (i + 1 == args.size()) {
        err << me << name << " needs a value\n";
        return false;
      }
      value = args[++i];
    }
    if (spec->kind != ValueKind::Repeated && !slot.empty()) {
      err << me << spec->name << " is given more than once\n";
      return false;
    }
    slot.push_back(value);
  }
  return true;
}

} // namespace gptc::cli
