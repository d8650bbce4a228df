//===- OneOf.cpp - An option that takes one of a few names ----------------===//

#include "OneOf.h"

#include "hyperoffload/Support/DidYouMean.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::ho;

CLI::Validator cli::oneOf(std::vector<std::string> names) {
  std::string list = "{" + llvm::join(names, ",") + "}";
  auto check = [names, list](std::string &text) -> std::string {
    if (llvm::is_contained(names, text))
      return "";
    return text + " not in " + list + suggestName(text, names);
  };
  return CLI::Validator(check, list);
}
