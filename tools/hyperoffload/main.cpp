//===- main.cpp - The hyperoffload command-line tool ----------------------===//
//
// `hyperoffload <command> <subcommand> [options]`. Each command lives in its
// own file and registers itself on the CLI11 app; parsing selects the action
// to run. With no arguments at all, the tool runs the default comparison
// (`compare` on DeepSeek-V3 + NSA decode); `--help` prints its help.
//
//===----------------------------------------------------------------------===//

#include "CalibrateCommand.h"
#include "CompareCommand.h"
#include "ModelCommand.h"
#include "OptimalityCommand.h"
#include "RunCommand.h"
#include "Support.h"
#include "SweepCommand.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

/// The exit status of a command line that cannot be run as given; 1 is a
/// run that failed.
static constexpr int kUsageError = 2;

/// The commands `app` parsed, from the tool down: "hyperoffload compare".
static std::string getCommandPath(const CLI::App &app) {
  std::string path = app.get_name();
  for (const CLI::App *command = &app;;) {
    std::vector<const CLI::App *> chosen = command->get_subcommands(
        [](const CLI::App *sub) { return sub->parsed(); });
    if (chosen.empty())
      return path;
    command = chosen.front();
    path += " " + command->get_name();
  }
}

/// A command line CLI11 rejected, in the tool's own error style.
static int reportUsageError(const CLI::App &app, const CLI::ParseError &error) {
  std::string command = getCommandPath(app);
  llvm::errs() << "hyperoffload: error: " << error.what() << " (see `"
               << command << " --help`)\n";
  return kUsageError;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  CLI::App app("HyperOffload: plans memory offload for AI accelerators",
               "hyperoffload");
  app.set_version_flag("--version", "hyperoffload " HYPEROFFLOAD_VERSION);
  app.footer("With no arguments: every policy on the DeepSeek-V3 + NSA decode "
             "scenario at its own budget, the tables on stdout and an HTML "
             "report written to hyperoffload-report.html in the current "
             "directory (`hyperoffload compare --help` for the options).");
  mlir::ho::cli::setCommandLine(argc, argv);
  mlir::ho::cli::Action action;
  mlir::ho::cli::addModelCommand(app, action);
  mlir::ho::cli::addCompareCommand(app, action);
  mlir::ho::cli::addSweepCommand(app, action);
  mlir::ho::cli::addRunCommand(app, action);
  mlir::ho::cli::addCalibrateCommand(app, action);
  mlir::ho::cli::addOptimalityCommand(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &error) {
    // --help and --version end the parse too, with success.
    if (error.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(error);
    return reportUsageError(app, error);
  }
  int status;
  if (argc == 1) {
    status = mlir::ho::cli::runDefaultComparison();
  } else if (!action) {
    // No subcommand chose an action: show the help of the deepest command
    // given.
    std::cout << app.help();
    status = 0;
  } else {
    status = action();
  }
  // Output that never arrived (a full disk, a closed pipe) is a failure, not
  // a result.
  llvm::outs().flush();
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout ||
      llvm::outs().has_error()) {
    llvm::outs().clear_error();
    std::fprintf(stderr, "hyperoffload: error: cannot write to standard "
                         "output\n");
    return 1;
  }
  return status;
}
