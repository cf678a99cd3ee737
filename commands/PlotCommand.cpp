//===- PlotCommand.cpp - `gptc plot` --------------------------------------===//

#include "commands/PlotCommand.h"

#include "commands/CommandOptions.h"
#include "commands/PlotLog.h"

#include "runtime/Files.h"

#include "llvm/Support/Program.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

extern char **environ;

namespace gptc::commands {
using namespace runtime;

const char *plotCommandUsage() {
  return "usage: gptc plot LOG.jsonl... [-o loss.png] [--smooth K] "
         "[--label NAME]...\n"
         "\n"
         "Draws the training and validation loss of gptc train --log files\n"
         "against steps and against tokens, into one PNG (default, for one\n"
         "log: LOG with .png for .jsonl), with gnuplot (apt-get install\n"
         "gnuplot-nox). Several logs are drawn over each other, one colour\n"
         "each, labelled by their file names.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE  the PNG (needed with several logs; never one\n"
         "                     of the logs)\n"
         "  --smooth K         draw the training loss as its trailing moving\n"
         "                     average over K steps (the mean of each step's\n"
         "                     loss and the K-1 before it), over the raw\n"
         "                     loss drawn faint; validation points as they\n"
         "                     are\n"
         "  --label NAME       a log's name in the key, once per log in\n"
         "                     order (default: its file name)\n"
         "  --script FILE      also write the gnuplot program, the data\n"
         "                     inline, to FILE (gnuplot FILE draws it again)\n";
}

namespace {

const char *kMe = "gptc plot: ";

/// One log as it is drawn.
struct Series {
  std::string label;
  LossLog log;
  std::vector<LossPoint> smooth; ///< the moving average, with --smooth
};

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

void writeData(std::ostream &s, const std::vector<LossPoint> &points,
               bool tokens) {
  for (const LossPoint &p : points)
    s << (tokens ? p.tokens : p.step) << " " << p.loss << "\n";
  s << "e\n";
}

/// Names reach gnuplot only as single-quoted strings: no escapes, no
/// backquote substitution, no macros in them; a quote is doubled. Control
/// characters (a newline would end the command) are refused for the
/// output file (checkGnuplotName) and shown as '?' in titles.
std::string quoted(const std::string &t) {
  std::string q = "'";
  for (char c : t)
    q += c == '\''      ? std::string("''")
         : isControl(c) ? std::string("?")
                        : std::string(1, c);
  return q + "'";
}

/// The gnuplot program: two panels, loss against steps and tokens; one
/// colour per log (one log: train blue, val red), a smoothed training
/// loss over its raw one drawn faint.
std::string script(const std::string &png, const std::string &title,
                   const std::vector<Series> &series) {
  static const char *kColours[] = {"1f77b4", "d62728", "2ca02c", "ff7f0e",
                                   "9467bd", "8c564b", "e377c2", "17becf"};
  const bool one = series.size() == 1;
  std::ostringstream s;
  s << "set terminal pngcairo size 1200,500 font 'sans,10'\n"
    << "set output " << quoted(png) << "\n"
    << "set multiplot layout 1,2 title " << quoted(title) << "\n"
    << "set grid\nset key top right\nset ylabel 'loss'\n";
  for (bool tokens : {false, true}) {
    s << "set xlabel '" << (tokens ? "tokens" : "step") << "'\n";
    std::vector<std::string> plots;
    std::vector<const std::vector<LossPoint> *> data;
    for (size_t i = 0; i < series.size(); ++i) {
      const Series &r = series[i];
      std::string colour = kColours[i % std::size(kColours)];
      std::string name = one ? "" : r.label + " ";
      if (!r.log.train.empty() && !r.smooth.empty()) {
        plots.push_back("'-' using 1:2 with lines lw 1 lc rgb '#A0" + colour +
                        "' notitle");
        data.push_back(&r.log.train);
      }
      if (!r.log.train.empty()) {
        plots.push_back("'-' using 1:2 with lines lw " +
                        std::string(r.smooth.empty() ? "1" : "2") +
                        " lc rgb '#" + colour + "' title " +
                        quoted(name + "train"));
        data.push_back(r.smooth.empty() ? &r.log.train : &r.smooth);
      }
      if (!r.log.val.empty()) {
        plots.push_back(
            "'-' using 1:2 with linespoints pt 7 ps 0.6 " +
            std::string(one ? "lw 2 lc rgb '#d62728'"
                            : "lw 1 dt 2 lc rgb '#" + colour + "'") +
            " title " + quoted(name + "val"));
        data.push_back(&r.log.val);
      }
    }
    s << "plot";
    for (size_t i = 0; i < plots.size(); ++i)
      s << (i ? ", " : " ") << plots[i];
    s << "\n";
    for (const std::vector<LossPoint> *points : data)
      writeData(s, *points, tokens);
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

/// Each log's file name; logs of one name get as many of their trailing
/// path components as tell them apart.
std::vector<std::string> defaultLabels(const std::vector<std::string> &logs) {
  std::vector<std::string> labels(logs.size());
  for (size_t parts = 1; parts <= 16; ++parts) {
    for (size_t i = 0; i < logs.size(); ++i) {
      size_t at = logs[i].size();
      for (size_t p = 0; p < parts && at != std::string::npos && at > 0; ++p)
        at = logs[i].find_last_of('/', at - 1);
      labels[i] = at == std::string::npos ? logs[i] : logs[i].substr(at + 1);
    }
    std::set<std::string> distinct(labels.begin(), labels.end());
    if (distinct.size() == labels.size())
      break;
  }
  return labels;
}

/// True when `path` names the same file as one of `logs` (checked by
/// device and inode: another spelling or a link is the same file).
bool isOneOfTheLogs(const std::string &path,
                    const std::vector<std::string> &logs) {
  struct stat st, log;
  if (::stat(path.c_str(), &st) != 0)
    return false;
  for (const std::string &l : logs)
    if (::stat(l.c_str(), &log) == 0 && log.st_dev == st.st_dev &&
        log.st_ino == st.st_ino)
      return true;
  return false;
}

/// Puts the PNG gnuplot drew at `drawn` in place at `png` when it is
/// whole (its last chunk IEND, and synced to disk): gnuplot's exit status
/// does not say whether its writes fit.
bool commitWholePng(const std::string &drawn, const std::string &png,
                    std::string &error) {
  static const unsigned char kIend[12] = {0,   0,   0,    0,    'I',  'E',
                                          'N', 'D', 0xAE, 0x42, 0x60, 0x82};
  int fd = ::open(drawn.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st;
  unsigned char tail[12] = {};
  bool whole = fd >= 0 && ::fstat(fd, &st) == 0 && st.st_size >= 12 &&
               ::pread(fd, tail, 12, st.st_size - 12) == 12 &&
               std::memcmp(tail, kIend, 12) == 0;
  bool synced = whole && ::fsync(fd) == 0;
  int syncErrno = errno;
  if (fd >= 0)
    ::close(fd);
  if (!whole) {
    error = png + ": gnuplot's PNG is incomplete (" +
            (fd >= 0 ? std::to_string(st.st_size) + " bytes written"
                     : std::string("none written")) +
            "; is the disk full?); " + "the file there was left as it was";
    return false;
  }
  if (!synced || ::rename(drawn.c_str(), png.c_str()) != 0) {
    error =
        png + ": cannot write: " + std::strerror(synced ? errno : syncErrno);
    return false;
  }
  return true;
}

/// One log's PNG: LOG with .png for its extension.
std::string defaultPng(const std::string &log) {
  size_t dot = log.find_last_of('.');
  return (dot == std::string::npos || log.find('/', dot) != std::string::npos
              ? log
              : log.substr(0, dot)) +
         ".png";
}

/// Checks the options and reads the logs into `series`; the PNG into
/// `png`. Returns 0, or the exit status after one error line.
int prepare(const cli::ParsedOptions &o, std::vector<Series> &series,
            std::string &png, int64_t &smooth, std::ostream &err) {
  const std::vector<std::string> &logs = o.positionals;
  auto fail = [&](int status, const std::string &why) {
    err << kMe << "error: " << why << "\n";
    return status;
  };
  if (logs.empty())
    return fail(2, "no log file (see gptc plot --help)");
  png = o.get("--output").value_or("");
  if (png.empty() && logs.size() > 1)
    return fail(2, "several logs: name the PNG with -o FILE.png");
  if (png.empty())
    png = defaultPng(logs[0]);
  smooth = 0;
  if (std::optional<std::string> k = o.get("--smooth")) {
    std::optional<int64_t> n = cli::parseCount(*k, /*allowExponent=*/false);
    if (!n || *n < 1)
      return fail(2, "--smooth '" + *k +
                         "' is not a number of steps (a whole number, 1 "
                         "or more)");
    smooth = *n;
  }
  std::vector<std::string> labels = o.all("--label");
  if (!labels.empty() && labels.size() != logs.size())
    return fail(2, std::to_string(labels.size()) + " --label for " +
                       std::to_string(logs.size()) +
                       " logs (one per log, in order)");
  if (labels.empty())
    labels = defaultLabels(logs);
  std::string script = o.get("--script").value_or("");
  for (const std::string &out : {png, script})
    if (!out.empty() && isOneOfTheLogs(out, logs))
      return fail(1, out + " is one of the logs; plotting would overwrite "
                           "it (choose another output name)");
  std::string error;
  if (!checkGnuplotName(png, error))
    return fail(1, error);
  series.resize(logs.size());
  for (size_t i = 0; i < logs.size(); ++i) {
    series[i].label = labels[i];
    if (!readLossLog(logs[i], series[i].log, error))
      return fail(1, error);
    if (smooth > 1)
      series[i].smooth = movingAverage(series[i].log.train, smooth);
  }
  if (!checkWritableDestination(png, error) ||
      (!script.empty() && !checkWritableDestination(script, error)))
    return fail(1, error);
  return 0;
}

} // namespace

int runPlotCommand(const std::vector<std::string> &args, std::ostream &out,
                   std::ostream &err) {
  static const std::vector<cli::OptionSpec> table = {
      {"--output", "-o", cli::ValueKind::String},
      {"--smooth", nullptr, cli::ValueKind::String},
      {"--label", nullptr, cli::ValueKind::Repeated},
      {"--script", nullptr, cli::ValueKind::String}};
  cli::ParsedOptions o;
  bool help = false;
  if (!cli::parseOptions(args, table, "plot", err, o, help))
    return 2;
  if (help) {
    out << plotCommandUsage();
    return 0;
  }
  std::vector<Series> series;
  std::string png;
  int64_t smooth = 0;
  if (int status = prepare(o, series, png, smooth, err))
    return status;
  const std::vector<std::string> &logs = o.positionals;
  std::string title = series.size() == 1
                          ? logs[0].substr(logs[0].find_last_of('/') + 1)
                          : std::to_string(series.size()) + " runs";
  if (smooth > 1)
    title += " (train: mean of " + std::to_string(smooth) + " steps)";
  // gnuplot draws into a sibling that replaces the PNG only when it is
  // whole: a full disk or a limit leaves the old one (or none), never a
  // truncated PNG reported as written.
  const std::string drawn = png + ".partial-" + std::to_string(::getpid());
  std::string program = script(drawn, title, series);
  std::string error;
  if (std::optional<std::string> file = o.get("--script")) {
    std::ofstream s(*file);
    s << script(png, title, series);
    s.close();
    if (!s) {
      err << kMe << "error: " << *file << ": cannot write the program\n";
      return 1;
    }
  }
  std::string gnuplot = findGnuplot();
  if (gnuplot.empty()) {
    err << kMe << "error: gnuplot is not on PATH (Debian: apt-get install "
        << "gnuplot-nox)\n";
    return 1;
  }
  if (!runGnuplot(gnuplot, program, error) ||
      !commitWholePng(drawn, png, error)) {
    std::remove(drawn.c_str());
    err << kMe << "error: " << error << "\n";
    return 1;
  }
  size_t train = 0, val = 0;
  for (const Series &r : series)
    train += r.log.train.size(), val += r.log.val.size();
  out << "wrote " << png << " ("
      << (series.size() > 1 ? std::to_string(series.size()) + " logs, " : "")
      << train << " training and " << val << " validation losses)\n";
  return 0;
}

const char kPlotHelp[] =
    R"(  gptc plot LOG.jsonl... -o loss.png [--smooth K]
                                 draw the losses of gptc train --log files,
                                 several over each other
)";

} // namespace gptc::commands
