//===- CommandTable.h - gptc's commands, one table --------------*- C++ -*-===//
//
// The commands of `gptc NAME ...` are one table (tools/gptc/gptc.cpp):
// dispatch, the "did you mean" of a near miss, the list in the error of an
// unknown command and the Commands section of --help all come from it.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_COMMANDTABLE_H
#define GPTC_COMMANDS_COMMANDTABLE_H

#include <iostream>
#include <ostream>
#include <string>
#include <vector>

namespace gptc::cli {

struct Command {
  /// `gptc NAME ...`.
  const char *name;
  /// Its lines in --help's Commands section: usage, then what it does.
  const char *help;
  /// Runs it on the arguments after NAME; OVERVIEW is gptc's --help text.
  int (*run)(const std::vector<std::string> &args, const std::string &overview);
  /// It runs the compiler: a crash prints LLVM's stack trace and bug-report
  /// banner. The runtime commands report their errors in one line and
  /// install no such handler.
  bool compiler = false;
};

/// A command that prints to std::cout and std::cerr, as a table entry.
template <int (*run)(const std::vector<std::string> &, std::ostream &,
                     std::ostream &)>
int withStdStreams(const std::vector<std::string> &args, const std::string &) {
  return run(args, std::cout, std::cerr);
}

/// The Commands section of --help: every command's help, in table order.
std::string commandsHelp(const std::vector<Command> &commands);

/// The command named NAME, or null.
const Command *findCommand(const std::vector<Command> &commands,
                           const std::string &name);

/// The error for a word that names no command, with "did you mean" for a
/// near miss and the list of commands.
/// `gptc help [COMMAND]` as `gptc --help` or `gptc COMMAND --help`:
/// rewrites argc and argv (into `storage`) when argv[1] is "help".
void helpAsFlag(int &argc, char **&argv, std::vector<char *> &storage);

/// Writes past a file-size limit (ulimit -f) fail with EFBIG, reported as
/// the refused writes they are (a warning for a periodic checkpoint, one
/// error line for an output), instead of SIGXFSZ killing the process at
/// the first one. Called first by every gptc program.
void ignoreFileSizeSignal();

void reportUnknownCommand(const std::vector<Command> &commands,
                          const std::string &name, std::ostream &err);

} // namespace gptc::cli

#endif // GPTC_COMMANDS_COMMANDTABLE_H
