//===- ProgressLine.h - One line of progress on a terminal ------*- C++ -*-===//
//
// Long commands (`compare` on a training step, `sweep`) say on stderr what
// they have done, how long it took and what comes next, redrawing one line
// in place; on a pipe or a file they say nothing. An error printed while
// the line shows starts on a clean line.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_PROGRESSLINE_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_PROGRESSLINE_H

#include <chrono>
#include <string>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace mlir::ho::cli {

/// When to show progress.
enum class ProgressMode { Auto, Always, Never };

/// Adds `--progress auto|always|never` to `command`.
CLI::Option *addProgressOption(CLI::App &command, ProgressMode &mode);

class ProgressLine {
public:
  /// Shown with Always, or with Auto where stderr is a terminal.
  explicit ProgressLine(ProgressMode mode);
  ~ProgressLine() { clear(); }

  bool isShown() const { return enabled; }
  /// Replaces the line with `text`.
  void show(const std::string &text);
  /// Erases the line, so that what follows starts on a clean one.
  void clear();
  /// Seconds since the line was made.
  double getElapsedSeconds() const;

private:
  bool enabled;
  bool drawn = false;
  std::chrono::steady_clock::time_point start;
};

/// "12 s", "3 min 05 s": a duration for a person to read.
std::string formatDuration(double seconds);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_PROGRESSLINE_H
