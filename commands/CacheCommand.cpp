//===- CacheCommand.cpp - `gptc cache` ------------------------------------===//

#include "commands/CacheCommand.h"

#include "commands/CacheScan.h"
#include "commands/CommandOptions.h"
#include "commands/CompileCache.h"

#include "runtime/ErrorLine.h"

#include "llvm/ADT/StringRef.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <ctime>
#include <optional>

namespace gptc::commands {

const char *cacheCommandUsage() {
  return "usage: gptc cache list [DIR]\n"
         "       gptc cache clean [DIR] [--older-than DAYS] [--keep N] "
         "[--dry-run]\n"
         "\n"
         "gptc train SPEC compiles the spec into SPEC-BASENAME-KEY.gptc/ and\n"
         "reuses it while the spec, the flags and gptc stay the same, so\n"
         "bundles pile up. DIR (default: where gptc train SPEC run here puts\n"
         "them: the working directory when it is writable, else\n"
         "$XDG_CACHE_HOME/gptc or ~/.cache/gptc) holds them; its\n"
         "subdirectories are not searched.\n"
         "\n"
         "  list               one line per bundle, most recently used first:\n"
         "                     its directory, spec, target, size on disk and\n"
         "                     when its step.so was last used (loaded or\n"
         "                     written: the file's access time, which most\n"
         "                     mounts update once a day); then the total\n"
         "  clean              remove bundles: every one, or those the "
         "options\n"
         "                     select (both: those both select)\n"
         "    --older-than DAYS  only those not used for DAYS days (a "
         "decimal:\n"
         "                     0.5 is 12 hours)\n"
         "    --keep N         all but the N most recently used\n"
         "    --dry-run        print what would be removed; remove nothing\n"
         "\n"
         "Only gptc's bundles are listed and removed: a directory named\n"
         "NAME-KEY.gptc (KEY: 12 hex digits) of this user's, not a symlink,\n"
         "holding a gptc manifest.json and nothing but manifest.json, step.so\n"
         "and spec.yaml. Anything else of such a name is left alone, with a\n"
         "note. clean skips, with a note, a bundle whose step.so a running\n"
         "process has loaded (a gptc train or sample), removes nothing while\n"
         "another gptc compiles into DIR, and also removes what killed\n"
         "compiles left (NAME-KEY.gptc.partial-XXXXXX no gptc is writing).\n";
}

namespace {

const char *kMe = "gptc cache: ";

std::string humanBytes(uint64_t n) {
  if (n < 1024)
    return std::to_string(n) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = -1;
  while (v >= 1024 && u < 3)
    v /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f %s", v, units[u]);
  return text;
}

std::string localTime(double seconds) {
  std::time_t t = std::time_t(seconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M", &tm);
  return text;
}

std::string plural(size_t n, const char *what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

/// DIR as the user reads it: the working directory's absolute path for ".".
std::string shownDirectory(const std::string &dir) {
  char cwd[PATH_MAX];
  return dir == "." && ::getcwd(cwd, sizeof(cwd)) ? std::string(cwd) : dir;
}

void printNotes(const CacheListing &listing, std::ostream &out) {
  for (const auto &[name, why] : listing.leftAlone)
    out << "note: left alone " << name << ": " << why << "\n";
}

void printList(const CacheListing &listing, const std::string &dir,
               std::ostream &out) {
  std::vector<std::vector<std::string>> rows = {
      {"bundle", "spec", "target", "size", "last used"}};
  uint64_t total = 0;
  for (const CachedBundle &b : listing.bundles) {
    rows.push_back({b.name, b.spec, b.target, humanBytes(b.bytes),
                    localTime(b.usedAt) +
                        (b.user.empty() ? "" : "  in use by " + b.user)});
    total += b.bytes;
  }
  if (listing.bundles.empty()) {
    out << "no cached bundles in " << shownDirectory(dir) << "\n";
  } else {
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto &row : rows)
      for (size_t i = 0; i < row.size(); ++i)
        width[i] = std::max(width[i], row[i].size());
    for (const auto &row : rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i)
        line += i + 1 == row.size()
                    ? row[i]
                    : row[i] + std::string(width[i] + 2 - row[i].size(), ' ');
      out << line << "\n";
    }
    out << plural(listing.bundles.size(), "bundle") << ", " << humanBytes(total)
        << ", in " << shownDirectory(dir) << "\n";
  }
  printNotes(listing, out);
}

struct CleanOptions {
  std::optional<double> olderThanDays;
  std::optional<int64_t> keep;
  bool dryRun = false;
};

int clean(const std::string &dir, const CleanOptions &options,
          std::ostream &out, std::ostream &err) {
  std::string me = runtime::errorPrefix("gptc cache clean: ");
  // gptc train looks a bundle up and compiles under this lock; holding it,
  // no bundle is removed that a train is about to reuse.
  std::optional<CompileLock> lock;
  if (!options.dryRun) {
    lock.emplace(dir + "/.");
    if (!lock->held()) {
      err << me << "another gptc is compiling into " << shownDirectory(dir)
          << " (it holds the directory's lock); nothing removed, try again "
          << "when it is done\n";
      return 1;
    }
  }
  CacheListing listing;
  std::string error;
  if (!scanCache(dir, listing, error)) {
    err << me << error << "\n";
    return 1;
  }
  double now = double(std::time(nullptr));
  const char *verb = options.dryRun ? "would remove " : "removed ";
  size_t removed = 0, kept = 0, skipped = 0, failed = 0;
  uint64_t freed = 0;
  for (size_t i = 0; i < listing.bundles.size(); ++i) {
    const CachedBundle &b = listing.bundles[i];
    bool old = !options.olderThanDays ||
               now - b.usedAt > *options.olderThanDays * 86400.0;
    bool beyondKept = !options.keep || int64_t(i) >= *options.keep;
    if (!old || !beyondKept) {
      ++kept;
      continue;
    }
    if (!b.user.empty()) {
      out << "note: skipped " << b.name << ": in use by " << b.user << "\n";
      ++skipped;
      continue;
    }
    if (!options.dryRun && !removeCachedBundle(listing, b, error)) {
      err << me << error << "\n";
      ++failed;
      continue;
    }
    out << verb << b.name << " (" << b.spec << ", " << b.target << ", "
        << humanBytes(b.bytes) << ", last used " << localTime(b.usedAt)
        << ")\n";
    ++removed;
    freed += b.bytes;
  }
  for (const auto &[name, bytes] : listing.debris) {
    if (!options.dryRun && !removeAbandonedStaging(listing, name))
      continue; // its writer came back: not debris after all
    out << verb << name << " (left by a killed compile, " << humanBytes(bytes)
        << ")\n";
    freed += bytes;
  }
  printNotes(listing, out);
  out << verb << plural(removed, "bundle") << " (" << humanBytes(freed)
      << (options.dryRun ? "" : " freed") << "), kept " << kept
      << (skipped ? ", skipped " + std::to_string(skipped) : "") << ", in "
      << shownDirectory(dir)
      << (options.dryRun ? " (--dry-run: nothing removed)" : "") << "\n";
  return failed ? 1 : 0;
}

int usageError(std::ostream &err, const std::string &what) {
  err << runtime::errorPrefix(kMe) << what
      << " (expected list or clean; see gptc cache --help)\n";
  return 2;
}

} // namespace

int runCacheCommand(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err) {
  if (args.empty())
    return usageError(err, "no subcommand");
  const std::string &sub = args[0];
  if (sub == "-h" || sub == "--help") {
    out << cacheCommandUsage();
    return 0;
  }
  if (sub != "list" && sub != "clean") {
    std::string near;
    for (const char *known : {"list", "clean"})
      if (near.empty() && llvm::StringRef(sub).edit_distance(known) <= 2)
        near = std::string("; did you mean '") + known + "'?";
    return usageError(err, "unknown subcommand '" + sub + "'" + near);
  }
  static const std::vector<cli::OptionSpec> cleanTable = {
      {"--older-than", nullptr, cli::ValueKind::String},
      {"--keep", nullptr, cli::ValueKind::String},
      {"--dry-run", nullptr, cli::ValueKind::None}};
  const std::string command = "cache " + sub;
  const std::string me = runtime::errorPrefix("gptc " + command + ": ");
  cli::ParsedOptions o;
  bool help = false;
  if (!cli::parseOptions({args.begin() + 1, args.end()},
                         sub == "clean" ? cleanTable
                                        : std::vector<cli::OptionSpec>(),
                         command, err, o, help))
    return 2;
  if (help) {
    out << cacheCommandUsage();
    return 0;
  }
  if (o.positionals.size() > 1) {
    err << me << "more than one directory (see gptc cache --help)\n";
    return 2;
  }
  CleanOptions options;
  options.dryRun = o.has("--dry-run");
  if (std::optional<std::string> days = o.get("--older-than")) {
    options.olderThanDays = cli::parseNumber(*days);
    if (!options.olderThanDays || *options.olderThanDays < 0) {
      err << me << "--older-than '" << *days
          << "' is not a number of days (a non-negative decimal, e.g. 7 or "
             "0.5)\n";
      return 2;
    }
  }
  if (std::optional<std::string> keep = o.get("--keep")) {
    options.keep = cli::parseCount(*keep, /*allowExponent=*/false);
    if (!options.keep) {
      err << me << "--keep '" << *keep << "' is not a non-negative integer\n";
      return 2;
    }
  }
  std::string dir, error;
  if (!o.positionals.empty()) {
    dir = o.positionals[0];
  } else {
    dir = compileCacheDirectory(/*create=*/false, error);
    if (dir.empty()) {
      err << me << error << "\n";
      return 1;
    }
    if (::access(dir.c_str(), F_OK) != 0) {
      out << "no cached bundles in " << dir << " (it does not exist)\n";
      return 0;
    }
  }
  if (sub == "clean")
    return clean(dir, options, out, err);
  CacheListing listing;
  if (!scanCache(dir, listing, error)) {
    err << me << error << "\n";
    return 1;
  }
  printList(listing, dir, out);
  return 0;
}

namespace {
const char kCacheHelp[] =
    R"(  gptc cache list|clean [DIR]    list or remove the bundles gptc train SPEC
                                 compiled (see gptc cache --help)
)";
} // namespace

constexpr cli::Command kCacheCommand = {"cache", kCacheHelp,
                                        cli::withStdStreams<runCacheCommand>};

} // namespace gptc::commands
