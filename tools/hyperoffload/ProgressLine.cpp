//===- ProgressLine.cpp - One line of progress on a terminal --------------===//

#include "ProgressLine.h"
#include "OneOf.h"

#include "llvm/Support/Process.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <map>

using namespace mlir::ho;
using namespace mlir::ho::cli;

CLI::Option *cli::addProgressOption(CLI::App &command, ProgressMode &mode) {
  static const std::map<std::string, ProgressMode> modes = {
      {"auto", ProgressMode::Auto},
      {"always", ProgressMode::Always},
      {"never", ProgressMode::Never}};
  return command
      .add_option_function<std::string>(
          "--progress",
          [&mode](const std::string &name) { mode = modes.at(name); },
          "Show progress on stderr: auto (when it is a terminal), always or "
          "never")
      ->check(oneOf({"auto", "always", "never"}))
      ->type_name("WHEN");
}

ProgressLine::ProgressLine(ProgressMode mode)
    : enabled(mode == ProgressMode::Always ||
              (mode == ProgressMode::Auto &&
               llvm::sys::Process::StandardErrIsDisplayed())),
      start(std::chrono::steady_clock::now()) {}

void ProgressLine::show(const std::string &text) {
  if (!enabled)
    return;
  fmt::print(stderr, "\r\033[K{}", text);
  std::fflush(stderr);
  drawn = true;
}

void ProgressLine::clear() {
  if (!drawn)
    return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn = false;
}

double ProgressLine::getElapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string cli::formatDuration(double seconds) {
  long whole = std::lround(seconds);
  if (whole < 60)
    return fmt::format("{} s", whole);
  return fmt::format("{} min {:02} s", whole / 60, whole % 60);
}
