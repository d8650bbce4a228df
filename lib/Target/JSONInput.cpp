//===- JSONInput.cpp - JSON files read with limits ------------------------===//

#include "hyperoffload/Target/JSONInput.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::ho;

static llvm::Error inputError(llvm::StringRef text, size_t offset,
                              const llvm::Twine &message) {
  // The same "[line:column]" position llvm::json reports.
  llvm::StringRef before = text.take_front(offset);
  size_t line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  size_t column =
      offset - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) + 1;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("[{0}:{1}, byte={2}]: {3}", line,
                                               column, offset, message.str()));
}

/// Checks depth and repeated keys in one pass over the tokens that matter:
/// brackets, and strings followed by ':' (keys). Syntax errors are left to
/// llvm::json, which runs after.
static llvm::Error checkStructure(llvm::StringRef text) {
  // One entry per open bracket: the keys seen, for an object.
  struct Level {
    bool isObject;
    llvm::StringSet<> keys;
  };
  llvm::SmallVector<Level> levels;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '{' || c == '[') {
      if (levels.size() == kMaxJSONDepth)
        return inputError(
            text, i,
            llvm::formatv("nested more than {0} levels deep", kMaxJSONDepth));
      levels.push_back({c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (!levels.empty())
        levels.pop_back();
    } else if (c == '"') {
      size_t start = i + 1, end = start;
      while (end < text.size() && text[end] != '"')
        end += text[end] == '\\' ? 2 : 1;
      if (end >= text.size())
        return llvm::Error::success(); // unterminated: llvm::json says where
      i = end;
      size_t next = text.find_first_not_of(" \t\r\n", end + 1);
      bool isKey = next != llvm::StringRef::npos && text[next] == ':';
      if (isKey && !levels.empty() && levels.back().isObject &&
          !levels.back().keys.insert(text.slice(start, end)).second)
        return inputError(text, start - 1,
                          "the key \"" + text.slice(start, end) +
                              "\" appears twice in one object");
    }
  }
  return llvm::Error::success();
}

llvm::Expected<llvm::json::Value> ho::parseJSONInput(llvm::StringRef text) {
  if (llvm::Error error = checkStructure(text))
    return std::move(error);
  return llvm::json::parse(text);
}

llvm::Expected<std::string> ho::readJSONInputFile(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (std::error_code error = llvm::sys::fs::status(path, status))
    return llvm::createStringError(error, error.message());
  if (!llvm::sys::fs::is_regular_file(status))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "not a regular file");
  if (status.getSize() > kMaxJSONFileBytes)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} bytes, more than the {1} MiB a JSON input may be",
                      status.getSize(), kMaxJSONFileBytes >> 20));
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
