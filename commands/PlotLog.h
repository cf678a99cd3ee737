//===- PlotLog.h - The losses `gptc plot` draws -----------------*- C++ -*-===//
//
// A `gptc train --log` file read into its training and validation losses,
// and the moving average `gptc plot --smooth K` draws over the training
// loss.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_COMMANDS_PLOTLOG_H
#define GPTC_COMMANDS_PLOTLOG_H

#include <cstdint>
#include <string>
#include <vector>

namespace gptc::commands {

struct LossPoint {
  int64_t step = 0, tokens = 0;
  double loss = 0.0;
};

/// The losses of one log file.
struct LossLog {
  std::vector<LossPoint> train, val;
};

/// Reads the train and val points of `path`, a `gptc train --log` file (a
/// null loss, not finite, is skipped). False and `error` naming the line
/// otherwise, or when it has no loss at all.
bool readLossLog(const std::string &path, LossLog &log, std::string &error);

/// The trailing moving average over `k` (>= 1) points: point i becomes the
/// mean of the losses of points i-k+1..i (of those there are, at the
/// start); steps and tokens stay. k = 1 leaves the points as they are.
std::vector<LossPoint> movingAverage(const std::vector<LossPoint> &points,
                                     int64_t k);

} // namespace gptc::commands

#endif // GPTC_COMMANDS_PLOTLOG_H
