//===- CacheCommand.h - `gptc cache` ----------------------------*- C++ -*-===//
//
//   gptc cache list [DIR]
//   gptc cache clean [DIR] [--older-than DAYS] [--keep N] [--dry-run]
//
// The bundles `gptc train SPEC` compiles (SPEC-BASENAME-KEY.gptc/, see
// CompileCache.h) pile up, one per spec, --set and gptc version. `list`
// prints one line per cached bundle (spec, target, size on disk, when its
// step.so was last used) and a total; `clean` removes them. Only
// directories that are such bundles are touched: named NAME-KEY.gptc (KEY
// 12 hex digits), a real directory of this user's (a symlink is never
// followed) holding a gptc manifest.json and nothing but a bundle's files.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_CACHECOMMAND_H
#define GPTC_COMMANDS_CACHECOMMAND_H

#include "commands/CommandTable.h"

#include <ostream>
#include <string>
#include <vector>

namespace gptc::commands {

/// `args` are the arguments after `cache`. Returns 0, 1 on an error (one
/// line on `err`) or 2 on a usage error.
int runCacheCommand(const std::vector<std::string> &args, std::ostream &out,
                    std::ostream &err);

const char *cacheCommandUsage();

/// Its entry in gptc's command table (help: its lines in `gptc --help`).
extern const cli::Command kCacheCommand;

} // namespace gptc::commands

#endif // GPTC_COMMANDS_CACHECOMMAND_H
