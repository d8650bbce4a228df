//===- PlainDiagnostics.h - Diagnostics without a source line ---*- C++ -*-===//
//
// MLIR prints a diagnostic at a location with no file line as
// `<unknown>:0: error: loc("layer 0 / mlp"): ...`, or at a module's line 0
// as `file:0:0: error: ...`. The tools print those in their own style
// instead: `hyperoffload: error: layer 0 / mlp: ...`.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_SUPPORT_PLAINDIAGNOSTICS_H
#define HYPEROFFLOAD_SUPPORT_PLAINDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace mlir::ho {

/// Where `loc` points when it is not a line of a file: the name of a named
/// location (the model graphs name every op after its layer), the file of
/// a file's line 0 (a module), or "" for nothing; std::nullopt for a line
/// of a file, which a SourceMgr handler shows with its source.
inline std::optional<std::string> getPlaceWithoutLine(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file.getLine() == 0 ? std::optional(file.getFilename().str())
                               : std::nullopt;
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (isa<FileLineColLoc>(name.getChildLoc()))
      return std::nullopt;
    return name.getName().str();
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::optional<std::string> place = getPlaceWithoutLine(part);
          !place || !place->empty())
        return place;
  return std::string();
}

/// Prints `diag` and its notes as `TOOL: error: PLACE: message` where it
/// has no source line to show; fails, printing nothing, where it has one.
inline LogicalResult printWithoutSourceLine(Diagnostic &diag,
                                            llvm::StringRef tool) {
  std::optional<std::string> place = getPlaceWithoutLine(diag.getLocation());
  if (!place)
    return failure();
  auto print = [&](const Diagnostic &what, const std::string &where) {
    llvm::StringRef severity = "error";
    switch (what.getSeverity()) {
    case DiagnosticSeverity::Note:
      severity = "note";
      break;
    case DiagnosticSeverity::Warning:
      severity = "warning";
      break;
    case DiagnosticSeverity::Remark:
      severity = "remark";
      break;
    case DiagnosticSeverity::Error:
      break;
    }
    llvm::errs() << tool << ": " << severity << ": ";
    if (!where.empty())
      llvm::errs() << where << ": ";
    llvm::errs() << what.str() << "\n";
  };
  print(diag, *place);
  for (const Diagnostic &note : diag.getNotes())
    print(note, getPlaceWithoutLine(note.getLocation()).value_or(""));
  return success();
}

} // namespace mlir::ho

#endif // HYPEROFFLOAD_SUPPORT_PLAINDIAGNOSTICS_H
