// Formats error messages into a fixed stack buffer and hands them to the caller's callback.
// Define EDGEFOLD_NO_LOG to compile every message out (flash-starved builds): statuses stay.
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
  void Report(const char* fmt, ...) EDGEFOLD_PRINTF_LIKE(2, 3);
  void ReportV(const char* prefix, const char* fmt, va_list args);

 private:
  LogFn log_;
  void* user_;
};

}  // namespace edgefold::internal
