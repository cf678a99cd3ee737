//===- ReportTable.h - Tables and numbers of --stats ------------*- C++ -*-===//
//
// The column layout and number formats of `gptc compile --stats`.
//
//===----------------------------------------------------------------------===//

#ifndef GPTC_DRIVER_REPORT_REPORTTABLE_H
#define GPTC_DRIVER_REPORT_REPORTTABLE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gptc::report {

/// A table with left-aligned text and right-aligned numeric columns.
class Table {
public:
  /// Column titles, each with whether the column is right-aligned.
  explicit Table(std::vector<std::pair<std::string, bool>> header);
  void addRow(std::vector<std::string> row);
  void print(llvm::raw_ostream &os, llvm::StringRef indent) const;

private:
  std::vector<bool> rightAligned;
  std::vector<size_t> widths;
  std::vector<std::vector<std::string>> rows;
};

/// 1234567 -> "1.23 M" (FLOPs), for the summary.
std::string human(int64_t v);
/// A count of the cost report, "~" in front when approximate.
std::string amount(double v, bool approximate = false);
/// Seconds as microseconds, one decimal.
std::string micros(double seconds);
/// Seconds as milliseconds, three decimals.
std::string millis(double seconds);

} // namespace gptc::report

#endif // GPTC_DRIVER_REPORT_REPORTTABLE_H
