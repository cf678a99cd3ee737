//===- PlotLog.cpp - The losses `gptc plot` draws -------------------------===//

#include "commands/PlotLog.h"

#include "runtime/Files.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <fstream>

namespace gptc::commands {

bool readLossLog(const std::string &path, LossLog &log, std::string &error) {
  if (!runtime::checkRegularFile(path, "log", error))
    return false;
  std::ifstream in(path);
  std::string text;
  for (int lineNo = 1; std::getline(in, text); ++lineNo) {
    if (text.empty())
      continue;
    std::string at = path + ":" + std::to_string(lineNo) + ": ";
    // A log line is one flat object; the parser recurses per level.
    if (!runtime::jsonNestingWithin(text, 4)) {
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
    (isTrain ? log.train : log.val).push_back({*step, *tokens, *value});
  }
  if (log.train.empty() && log.val.empty()) {
    error = path + ": no losses to plot";
    return false;
  }
  return true;
}

std::vector<LossPoint> movingAverage(const std::vector<LossPoint> &points,
                                     int64_t k) {
  std::vector<LossPoint> smooth = points;
  long double sum = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    sum += points[i].loss;
    if (int64_t(i) >= k)
      sum -= points[i - size_t(k)].loss;
    int64_t n = std::min<int64_t>(int64_t(i) + 1, k);
    smooth[i].loss = double(sum / n);
  }
  return smooth;
}

} // namespace gptc::commands
