//===- HtmlPage.h - The frame the HTML reports share ------------*- C++ -*-===//

#ifndef HYPEROFFLOAD_LIB_COMPARE_HTMLPAGE_H
#define HYPEROFFLOAD_LIB_COMPARE_HTMLPAGE_H

#include "hyperoffload/Compare/ComparisonTable.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace mlir::ho::html {

/// The page up to and including the opening <body>, with the stylesheet.
void writeHeader(llvm::raw_ostream &os, llvm::StringRef title);

/// A short script that records, for each plot, how many marks the browser
/// drew and how big, as JSON in <pre id="render-check">; then the end of
/// the page. The plots do not need it: it is there for tests and for
/// anyone checking a report in a browser's console.
void writeFooter(llvm::raw_ostream &os);

/// The cells of `table` as an HTML table; rows whose last cell is "no"
/// (runs that do not fit) are greyed, and row `best` is highlighted. A
/// column of times or of bytes is shown in one unit, so that it reads down.
void writeTable(llvm::raw_ostream &os, const ComparisonTable &table,
                std::optional<size_t> best = std::nullopt);

} // namespace mlir::ho::html

#endif // HYPEROFFLOAD_LIB_COMPARE_HTMLPAGE_H
