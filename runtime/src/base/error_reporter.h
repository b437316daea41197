// Formats error messages into a fixed stack buffer and hands them to the caller's callback.
// Define EDGEFOLD_NO_LOG (CMake: -DEDGEFOLD_LOG=OFF) to compile every message out for
// flash-starved builds: Report is then an empty inline template, so the format strings and
// their arguments are never emitted; every Status stays.
#pragma once
#include <cstdarg>

#include "edgefold/types.h"

#if defined(__GNUC__)
#define EDGEFOLD_PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define EDGEFOLD_PRINTF_LIKE(fmt, args)
#endif

namespace edgefold::internal {

class ErrorReporter {
 public:
  ErrorReporter(LogFn log, void* user) : log_(log), user_(user) {}
#if defined(EDGEFOLD_NO_LOG)
  template <class... Args>
  void Report(const char*, const Args&...) {}
#else
  void Report(const char* fmt, ...) EDGEFOLD_PRINTF_LIKE(2, 3);
#endif
  void ReportV(const char* prefix, const char* fmt, va_list args);

 private:
  LogFn log_;
  void* user_;
};

}  // namespace edgefold::internal
