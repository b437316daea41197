/* Shared by the C API test files: a non-aborting CHECK, a log sink, aligned allocation and
 * reading a model file into it. */
#ifndef EDGEFOLD_TESTS_C_API_TEST_UTIL_H_
#define EDGEFOLD_TESTS_C_API_TEST_UTIL_H_
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "edgefold/edgefold.h"

extern int g_failures;
#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      ++g_failures;                                                   \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
    }                                                                 \
  } while (0)

/* The log callback keeps the last message and counts calls. */
typedef struct log_sink {
  char last[512];
  int calls;
} log_sink;

static inline void log_to_sink(void* user, const char* message) {
  log_sink* sink = (log_sink*)user;
  snprintf(sink->last, sizeof sink->last, "%s", message);
  sink->calls++;
}

/* 64-byte aligned, with 64 bytes of slack so callers may offset into it. free() it. */
static inline void* alloc64(size_t bytes) {
  return aligned_alloc(EF_ARENA_ALIGNMENT, (bytes + 63) / 64 * 64 + 64);
}

/* The file at `path` in an alloc64 buffer (free() it), its size in *bytes; NULL if unreadable. */
static inline uint8_t* read_model(const char* path, size_t* bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* buf = (uint8_t*)alloc64(*bytes);
  const size_t got = fread(buf, 1, *bytes, f);
  fclose(f);
  if (got != *bytes) {
    free(buf);
    return NULL;
  }
  return buf;
}

#endif
