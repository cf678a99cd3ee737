//===- PlotCommand.cpp - `gptc plot` --------------------------------------===//

#include "commands/PlotCommand.h"

#include "commands/CommandOptions.h"

#include "runtime/Files.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

extern char **environ;

namespace gptc::commands {
using namespace runtime;

const char *plotCommandUsage() {
  return "usage: gptc plot LOG.jsonl [-o loss.png]\n"
         "\n"
         "Draws the training and validation loss of a gptc train --log file\n"
         "against steps and against tokens, into one PNG (default: LOG with\n"
         ".png for .jsonl), with gnuplot (apt-get install gnuplot-nox).\n";
}

namespace {

const char *kMe = "gptc plot: ";

struct Point {
  int64_t step = 0, tokens = 0;
  double loss = 0.0;
};

/// Reads the train and val points of `path`; an error names the line.
bool readLog(const std::string &path, std::vector<Point> &train,
             std::vector<Point> &val, std::string &error) {
  if (!checkRegularFile(path, "log", error))
    return false;
  std::ifstream in(path);
  std::string text;
  for (int lineNo = 1; std::getline(in, text); ++lineNo) {
    if (text.empty())
      continue;
    std::string at = path + ":" + std::to_string(lineNo) + ": ";
    // A log line is one flat object; the parser recurses per level.
    if (!jsonNestingWithin(text, 4)) {
      error = at + "not a gptc train --log line (nested too deeply)";
      return false;
    }
    llvm::Expected<llvm::json::Value> v = llvm::json::parse(text);
    if (!v) {
      error = at + "not JSON (" + llvm::toString(v.takeError()) + ")";
      return false;
    }
    const llvm::json::Object *o = v->getAsObject();
    std::optional<llvm::StringRef> type =
        o ? o->getString("type") : std::nullopt;
    std::optional<int64_t> step = o ? o->getInteger("step") : std::nullopt;
    std::optional<int64_t> tokens = o ? o->getInteger("tokens") : std::nullopt;
    if (!type || !step || !tokens || (*type != "train" && *type != "val")) {
      error = at + "not a gptc train --log line (needs type train or val, " +
              "step and tokens)";
      return false;
    }
    bool isTrain = *type == "train";
    const llvm::json::Value *loss = o->get(isTrain ? "loss" : "val_loss");
    if (!loss) {
      error = at + "no " + (isTrain ? "loss" : "val_loss");
      return false;
    }
    std::optional<double> value = loss->getAsNumber();
    if (!value)
      continue; // null: a non-finite loss, not drawn
    (isTrain ? train : val).push_back({*step, *tokens, *value});
  }
  if (train.empty() && val.empty()) {
    error = path + ": no losses to plot";
    return false;
  }
  return true;
}

bool isControl(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

/// A file name gnuplot can be given: one without control characters.
bool checkGnuplotName(const std::string &name, std::string &error) {
  for (char c : name)
    if (isControl(c)) {
      error = "the output name has a control character (a newline?); "
              "choose another with -o";
      return false;
    }
  return true;
}

/// The gnuplot program on PATH, or "".
std::string findGnuplot() {
  llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("gnuplot");
  return found ? *found : std::string();
}

void writeData(std::ostream &s, const std::vector<Point> &points, bool tokens) {
  for (const Point &p : points)
    s << (tokens ? p.tokens : p.step) << " " << p.loss << "\n";
  s << "e\n";
}

/// The gnuplot program: two panels, loss against steps and tokens.
std::string script(const std::string &png, const std::string &title,
                   const std::vector<Point> &train,
                   const std::vector<Point> &val) {
  std::ostringstream s;
  // Names reach gnuplot only as single-quoted strings: no escapes, no
  // backquote substitution, no macros in them; a quote is doubled. Control
  // characters (a newline would end the command) are refused for the
  // output file (checkGnuplotName) and shown as '?' in the title.
  auto quoted = [](const std::string &t) {
    std::string q = "'";
    for (char c : t)
      q += c == '\''      ? std::string("''")
           : isControl(c) ? std::string("?")
                          : std::string(1, c);
    return q + "'";
  };
  s << "set terminal pngcairo size 1200,500 font 'sans,10'\n"
    << "set output " << quoted(png) << "\n"
    << "set multiplot layout 1,2 title " << quoted(title) << "\n"
    << "set grid\nset key top right\nset ylabel 'loss'\n";
  for (bool tokens : {false, true}) {
    s << "set xlabel '" << (tokens ? "tokens" : "step") << "'\n";
    std::string plots;
    if (!train.empty())
      plots += "'-' using 1:2 with lines lw 1 lc rgb '#1f77b4' title 'train'";
    if (!val.empty())
      plots += std::string(plots.empty() ? "" : ", ") +
               "'-' using 1:2 with linespoints pt 7 ps 0.6 lw 2 "
               "lc rgb '#d62728' title 'val'";
    s << "plot " << plots << "\n";
    if (!train.empty())
      writeData(s, train, tokens);
    if (!val.empty())
      writeData(s, val, tokens);
  }
  s << "unset multiplot\n";
  return s.str();
}

/// Runs gnuplot with `program` on its standard input.
bool runGnuplot(const std::string &gnuplot, const std::string &program,
                std::string &error) {
  int fds[2];
  if (::pipe(fds) != 0) {
    error = std::string("cannot make a pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  char *argv[] = {const_cast<char *>(gnuplot.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (rc != 0) {
    ::close(fds[1]);
    error = "cannot run " + gnuplot + ": " + std::strerror(rc);
    return false;
  }
  size_t done = 0;
  while (done < program.size()) {
    ssize_t n = ::write(fds[1], program.data() + done, program.size() - done);
    if (n <= 0)
      break;
    done += size_t(n);
  }
  ::close(fds[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = gnuplot + " failed (its messages are above)";
    return false;
  }
  return true;
}

} // namespace

int runPlotCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err) {
  static const std::vector<cli::OptionSpec> table = {
      {"--output", "-o", cli::ValueKind::String}};
  cli::ParsedOptions o;
  bool help = false;
  if (!cli::parseOptions(args, table, "plot", err, o, help))
    return 2;
  if (help) {
    out << plotCommandUsage();
    return 0;
  }
  if (o.positionals.size() != 1) {
    err << kMe << "error: "
        << (o.positionals.empty() ? "no log file" : "more than one log file")
        << " (see gptc plot --help)\n";
    return 2;
  }
  const std::string log = o.positionals[0];
  std::string png = o.get("--output").value_or("");
  if (png.empty()) {
    size_t dot = log.find_last_of('.');
    png = (dot == std::string::npos || log.find('/', dot) != std::string::npos
               ? log
               : log.substr(0, dot)) +
          ".png";
  }
  std::vector<Point> train, val;
  std::string error;
  if (!checkGnuplotName(png, error) || !readLog(log, train, val, error) ||
      !checkWritableDestination(png, error)) {
    err << kMe << "error: " << error << "\n";
    return 1;
  }
  std::string gnuplot = findGnuplot();
  if (gnuplot.empty()) {
    err << kMe << "error: gnuplot is not on PATH (Debian: apt-get install "
        << "gnuplot-nox)\n";
    return 1;
  }
  std::string title = log.substr(log.find_last_of('/') + 1);
  if (!runGnuplot(gnuplot, script(png, title, train, val), error)) {
    err << kMe << "error: " << error << "\n";
    return 1;
  }
  out << "wrote " << png << " (" << train.size() << " training and "
      << val.size() << " validation losses)\n";
  return 0;
}

const char kPlotHelp[] = R"(  gptc plot LOG.jsonl -o loss.png
                                 draw the losses of a gptc train --log file
)";

} // namespace gptc::commands
