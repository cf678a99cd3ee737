//===- CommandTable.cpp - gptc's commands, one table ----------------------===//

#include "commands/CommandTable.h"

#include "llvm/ADT/StringRef.h"

#include <csignal>

namespace gptc::cli {

std::string commandsHelp(const std::vector<Command> &commands) {
  std::string text = "Commands:\n";
  for (const Command &command : commands)
    text += command.help;
  return text;
}

const Command *findCommand(const std::vector<Command> &commands,
                           const std::string &name) {
  for (const Command &command : commands)
    if (name == command.name)
      return &command;
  return nullptr;
}

void helpAsFlag(int &argc, char **&argv, std::vector<char *> &storage) {
  if (argc < 2 || llvm::StringRef(argv[1]) != "help")
    return;
  static char helpFlag[] = "--help";
  storage = {argv[0]};
  if (argc > 2)
    storage.push_back(argv[2]);
  storage.push_back(helpFlag);
  argc = int(storage.size());
  argv = storage.data();
}

void reportUnknownCommand(const std::vector<Command> &commands,
                          const std::string &name, std::ostream &err) {
  err << "gptc: error: unknown command '" << name << "'";
  for (const Command &command : commands)
    if (llvm::StringRef(name).edit_distance(command.name) <= 2) {
      err << "; did you mean '" << command.name << "'?";
      break;
    }
  // "check, compile, data, plot, sample or train", in table order.
  err << " (expected ";
  for (size_t i = 0; i < commands.size(); ++i)
    err << (i == 0                     ? ""
            : i + 1 == commands.size() ? " or "
                                       : ", ")
        << commands[i].name;
  err << "; see gptc --help)\n";
}

void ignoreFileSizeSignal() { std::signal(SIGXFSZ, SIG_IGN); }

} // namespace gptc::cli
