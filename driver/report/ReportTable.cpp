//===- ReportTable.cpp - Text tables and numbers of the --stats report ----===//
//
// See ReportTable.h.
//
//===----------------------------------------------------------------------===//

#include "driver/report/ReportTable.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>

namespace gptc::report {

Table::Table(std::vector<std::pair<std::string, bool>> header) {
  for (auto &[title, right] : header) {
    rightAligned.push_back(right);
    widths.push_back(title.size());
  }
  std::vector<std::string> titles;
  for (auto &h : header)
    titles.push_back(h.first);
  addRow(std::move(titles));
}

void Table::addRow(std::vector<std::string> row) {
  assert(row.size() == widths.size() && "a row of another table's width");
  row.resize(widths.size());
  for (size_t i = 0; i < row.size(); ++i)
    widths[i] = std::max(widths[i], row[i].size());
  rows.push_back(std::move(row));
}

void Table::print(llvm::raw_ostream &os, llvm::StringRef indent) const {
  for (const auto &row : rows) {
    std::string line(indent);
    for (size_t i = 0; i < row.size(); ++i) {
      std::string pad(widths[i] - row[i].size(), ' ');
      line += i ? "  " : "";
      line += rightAligned[i] ? pad + row[i] : row[i] + pad;
    }
    os << llvm::StringRef(line).rtrim() << "\n";
  }
}

std::string human(int64_t v) {
  const char *units[] = {"", "k", "M", "G", "T", "P"};
  double x = static_cast<double>(v);
  size_t u = 0;
  while (x >= 1000 && u + 1 < std::size(units)) {
    x /= 1000;
    ++u;
  }
  return llvm::formatv("{0:f2} {1}", x, units[u]).str();
}

std::string amount(double v, bool approximate) {
  return (approximate ? "~" : "") + std::to_string(std::llround(v));
}

std::string micros(double seconds) {
  return llvm::formatv("{0:f1}", seconds * 1e6).str();
}

std::string millis(double seconds) {
  return llvm::formatv("{0:f3}", seconds * 1e3).str();
}

} // namespace gptc::report
