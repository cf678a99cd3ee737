//===- DataCommand.h - `gptc data` ------------------------------*- C++ -*-===//
//
//   gptc data TEXT... -o DIR [--val-fraction F] [--shard-tokens N]
//                            [--prefix NAME] [--doc-per-file]
//
// Makes byte-token train/val shards from text files (see TextToShards.h) and
// prints one summary line.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_DATACOMMAND_H
#define GPTC_COMMANDS_DATACOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace gptc::commands {

/// Its lines in `gptc --help`'s Commands section.
extern const char kDataHelp[];

/// `args` are the arguments after `data`. Returns the exit code: 0 on
/// success (and for --help), 1 on an error (one line on `err`), 2 on a usage
/// error.
int runDataCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err);

/// The --help text.
const char *dataCommandUsage();

} // namespace gptc::commands

#endif // GPTC_COMMANDS_DATACOMMAND_H
