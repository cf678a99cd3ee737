//===- ExportCommand.h - `gptc export` --------------------------*- C++ -*-===//
//
//   gptc export CHECKPOINT --names modded-nanogpt|hf|gptc -o FILE.safetensors
//
// Writes a checkpoint's model weights (its model.safetensors, checked
// against the SHA-256 that checkpoint.json records) as one safetensors
// file under another trainer's names (runtime/ParamNames.h: the table
// --init reads modded-nanogpt's names with), each tensor in its stored
// dtype; hf's block matrices in GPT-2's [in, out] layout. The file is
// written atomically; an existing one is replaced only with --force.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_EXPORTCOMMAND_H
#define GPTC_COMMANDS_EXPORTCOMMAND_H

#include <ostream>
#include <string>
#include <vector>

namespace gptc::commands {

/// Its lines in `gptc --help`'s Commands section.
extern const char kExportHelp[];

/// `args` are the arguments after `export`. Returns 0, 1 on an error (one
/// line on `err`) or 2 on a usage error.
int runExportCommand(const std::vector<std::string> &args, std::ostream &out,
                     std::ostream &err);

/// runExportCommand on std::cout and std::cerr, as gptc's command table
/// (commands/CommandTable.h) runs it.
int runExport(const std::vector<std::string> &args, const std::string &);

const char *exportCommandUsage();

} // namespace gptc::commands

#endif // GPTC_COMMANDS_EXPORTCOMMAND_H
