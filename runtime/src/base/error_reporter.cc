#include "base/error_reporter.h"

#include <cstdio>

namespace edgefold::internal {

#if !defined(EDGEFOLD_NO_LOG)
void ErrorReporter::Report(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  ReportV("", fmt, args);
  va_end(args);
}
#endif

void ErrorReporter::ReportV(const char* prefix, const char* fmt, va_list args) {
#if defined(EDGEFOLD_NO_LOG)
  (void)prefix;
  (void)fmt;
  (void)args;
#else
  if (log_ == nullptr) return;
  char message[256];
  int used = std::snprintf(message, sizeof(message), "%s", prefix);
  if (used < 0) used = 0;
  if (static_cast<size_t>(used) < sizeof(message)) {
    std::vsnprintf(message + used, sizeof(message) - static_cast<size_t>(used), fmt, args);
  }
  log_(user_, message);
#endif
}

}  // namespace edgefold::internal
