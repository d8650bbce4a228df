//===- OneOf.h - An option that takes one of a few names --------*- C++ -*-===//
//
// CLI11's IsMember, with a suggestion when the name given is close to one
// of the valid ones.
//
//===----------------------------------------------------------------------===//

#ifndef HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_ONEOF_H
#define HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_ONEOF_H

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace mlir::ho::cli {

/// Accepts one of `names`; otherwise says which are valid and, where one is
/// close, which was likely meant. The help shows them as `{a,b,c}`.
CLI::Validator oneOf(std::vector<std::string> names);

} // namespace mlir::ho::cli

#endif // HYPEROFFLOAD_TOOLS_HYPEROFFLOAD_ONEOF_H
