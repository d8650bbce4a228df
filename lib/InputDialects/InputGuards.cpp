//===- InputGuards.cpp - Input upstream MLIR crashes on -------------------===//

#include "hyperoffload/InputGuards.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

/// The ops whose custom parsers store a failed integer-list parse, with the
/// keyword that introduces the list.
static constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
    kHazardousLists[] = {{"linalg.transpose", "permutation"},
                         {"linalg.broadcast", "dimensions"},
                         {"linalg.reduce", "dimensions"}};

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$' || c == '-';
}

/// The position of the first character at or after `i` that is neither
/// white space nor inside a `//` comment, as MLIR's lexer skips them.
static size_t skipSpace(llvm::StringRef text, size_t i) {
  while (i < text.size()) {
    if (llvm::isSpace(text[i])) {
      ++i;
    } else if (text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
    } else {
      break;
    }
  }
  return std::min(i, text.size());
}

/// Where the list `[i, j, ...]` that should start at `i` stops being one
/// (each entry a decimal or hexadecimal integer of int64), or npos if it is
/// well formed.
static size_t findMalformedList(llvm::StringRef text, size_t i) {
  i = skipSpace(text, i);
  if (i == text.size() || text[i] != '[')
    return i;
  i = skipSpace(text, i + 1);
  if (i < text.size() && text[i] == ']')
    return llvm::StringRef::npos;
  while (true) {
    size_t end = i;
    if (end < text.size() && text[end] == '-')
      ++end;
    while (end < text.size() && llvm::isAlnum(text[end]))
      ++end;
    int64_t value;
    if (end == i || text.slice(i, end).getAsInteger(0, value))
      return i;
    i = skipSpace(text, end);
    if (i < text.size() && text[i] == ']')
      return llvm::StringRef::npos;
    if (i == text.size() || text[i] != ',')
      return i;
    i = skipSpace(text, i + 1);
  }
}

/// Whether `at` lies in a `//` comment.
static bool isInComment(llvm::StringRef text, size_t at) {
  size_t lineStart = text.rfind('\n', at);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  return text.slice(lineStart, at).contains("//");
}

/// The position of the first `=` at or after `i` outside comments, or npos.
static size_t findEquals(llvm::StringRef text, size_t i) {
  for (i = skipSpace(text, i); i < text.size(); i = skipSpace(text, i + 1))
    if (text[i] == '=')
      return i;
  return llvm::StringRef::npos;
}

LogicalResult ho::checkParserHazards(const llvm::SourceMgr &sourceMgr,
                                     MLIRContext *context) {
  unsigned bufferId = sourceMgr.getMainFileID();
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(bufferId);
  llvm::StringRef text = buffer->getBuffer();
  bool clean = true;
  for (auto [opName, keyword] : kHazardousLists) {
    for (size_t at = text.find(opName); at != llvm::StringRef::npos;
         at = text.find(opName, at + 1)) {
      size_t nameEnd = at + opName.size();
      // The custom form only: `"linalg.transpose"(...)` parses generically.
      if ((at > 0 && (text[at - 1] == '"' || isIdentifierChar(text[at - 1]))) ||
          (nameEnd < text.size() && isIdentifierChar(text[nameEnd])) ||
          isInComment(text, at))
        continue;
      // The first `=` after the name follows the keyword, if the op has its
      // list; otherwise the parser reports the missing keyword itself.
      size_t equals = findEquals(text, nameEnd);
      if (equals == llvm::StringRef::npos)
        break;
      llvm::StringRef before = text.slice(nameEnd, equals).rtrim();
      if (!before.consume_back(keyword) ||
          (!before.empty() && isIdentifierChar(before.back())))
        continue;
      size_t bad = findMalformedList(text, equals + 1);
      if (bad == llvm::StringRef::npos)
        continue;
      auto [line, column] = sourceMgr.getLineAndColumn(
          llvm::SMLoc::getFromPointer(text.data() + bad), bufferId);
      emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                    line, column))
          << "expected a list of 64-bit integers, `" << keyword
          << " = [i, j, ...]`, for '" << opName
          << "' (MLIR 22's parser of that op crashes on anything else)";
      clean = false;
    }
  }
  return success(clean);
}

OwningOpRef<ModuleOp> ho::parseInputFile(llvm::StringRef path,
                                         llvm::SourceMgr &sourceMgr,
                                         MLIRContext *context) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (std::error_code error = file.getError()) {
    // What mlir::parseSourceFile says.
    emitError(UnknownLoc::get(context))
        << "could not open input file " << path << ": " << error.message();
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  if (failed(checkParserHazards(sourceMgr, context)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
}
