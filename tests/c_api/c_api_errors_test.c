/* Error paths of the C API: each returns its status (and logs a message) instead of crashing. */
#include <string.h>

#include "testing/c_api_test_util.h"
#include "testing/tensor_pb.h"

/* Creates with `arena_bytes` of arena at `arena`; expects `want`, and a logged message. */
static void expect_create_fails(const char* what, const uint8_t* model, size_t model_bytes,
                                void* arena, size_t arena_bytes, ef_status want) {
  log_sink sink = {{0}, 0};
  ef_options opt;
  ef_options_init(&opt);
  opt.log = log_to_sink;
  opt.log_user = &sink;
  ef_interpreter* it = (ef_interpreter*)arena; /* must be reset to NULL */
  const ef_status s = ef_create(model, model_bytes, arena, arena_bytes, &opt, &it);
  CHECK(s == want, "%s: got '%s', want '%s'", what, ef_status_string(s), ef_status_string(want));
  CHECK(it == NULL, "%s: out handle not cleared", what);
  CHECK(sink.calls > 0 && sink.last[0] != '\0', "%s: no message logged", what);
  printf("  %-22s -> %s: %s\n", what, ef_status_string(s), sink.last);
}

static void test_bad_models(const uint8_t* model, size_t model_bytes) {
  uint8_t* junk = (uint8_t*)alloc64(model_bytes + 64);
  void* arena = alloc64(1 << 20);
  memset(junk, 0xAB, model_bytes);
  expect_create_fails("garbage bytes", junk, model_bytes, arena, 1 << 20, EF_INVALID_MODEL);
  memcpy(junk, model, model_bytes);
  expect_create_fails("truncated model", junk, model_bytes / 2, arena, 1 << 20, EF_INVALID_MODEL);
  memcpy(junk + 4, model, model_bytes);
  expect_create_fails("misaligned model", junk + 4, model_bytes, arena, 1 << 20,
                      EF_MISALIGNED_MODEL);
  size_t need = 0;
  CHECK(ef_required_arena_bytes(junk, 64, NULL, &need) != EF_OK, "size of garbage");
  CHECK(ef_required_arena_bytes(model, model_bytes, NULL, NULL) == EF_INVALID_ARGUMENT, "null");
  free(junk);
  free(arena);
}

static void test_bad_arenas(const uint8_t* model, size_t model_bytes) {
  size_t need = 0;
  CHECK(ef_required_arena_bytes(model, model_bytes, NULL, &need) == EF_OK, "size");
  uint8_t* arena = (uint8_t*)alloc64(need);
  expect_create_fails("arena one block short", model, model_bytes, arena, need - 64,
                      EF_ARENA_TOO_SMALL);
  expect_create_fails("misaligned arena", model, model_bytes, arena + 8, need, EF_MISALIGNED_ARENA);
  expect_create_fails("null arena", model, model_bytes, NULL, need, EF_INVALID_ARGUMENT);
  CHECK(ef_create(model, model_bytes, arena, need, NULL, NULL) == EF_INVALID_ARGUMENT, "null out");
  free(arena);
}

static void test_bad_calls(const uint8_t* model, size_t model_bytes, const tensor_pb* in) {
  size_t need = 0;
  CHECK(ef_required_arena_bytes(model, model_bytes, NULL, &need) == EF_OK, "size");
  void* arena = alloc64(need);
  ef_interpreter* it = NULL;
  if (ef_create(model, model_bytes, arena, need, NULL, &it) != EF_OK) {
    CHECK(0, "create with NULL options failed");
    free(arena);
    return;
  }
  ef_tensor t;
  CHECK(ef_set_input(it, 0, in->data, in->elems - 1) == EF_SHAPE_MISMATCH, "short input");
  CHECK(ef_set_input(it, 7, in->data, in->elems) == EF_INVALID_ARGUMENT, "input index");
  CHECK(ef_set_input(it, 0, NULL, in->elems) == EF_INVALID_ARGUMENT, "null data");
  CHECK(ef_get_output(it, 7, &t) == EF_INVALID_ARGUMENT, "output index");
  CHECK(ef_get_input(it, 0, NULL) == EF_INVALID_ARGUMENT, "null view");
  CHECK(ef_invoke(NULL) == EF_INVALID_ARGUMENT, "null interpreter");
  CHECK(ef_num_outputs(NULL) == 0, "null interpreter count");
  free(arena);
}

static void test_names(void) {
  const ef_status all[] = {EF_OK,
                           EF_INVALID_MODEL,
                           EF_UNSUPPORTED_VERSION,
                           EF_MISALIGNED_MODEL,
                           EF_UNSUPPORTED_OP,
                           EF_SHAPE_MISMATCH,
                           EF_ARENA_TOO_SMALL,
                           EF_MISALIGNED_ARENA,
                           EF_INVALID_ARGUMENT,
                           EF_NUMERIC_ERROR,
                           EF_BAD_STATE};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
    CHECK(strcmp(ef_status_string(all[i]), "unknown status") != 0, "status 0x%x unnamed",
          (unsigned)all[i]);
  CHECK(strcmp(ef_status_string((ef_status)0x7777), "unknown status") == 0, "bogus status");
  CHECK(strcmp(ef_isa_name(EF_ISA_AVX2_FMA), "avx2+fma") == 0, "isa name");
}

/* Forcing a level this CPU lacks is refused with a message. */
static void test_unavailable_isa(const uint8_t* model, size_t model_bytes) {
  const ef_isa isas[] = {EF_ISA_NEON, EF_ISA_AVX512, EF_ISA_SSE42};
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; ++i) {
    if (ef_isa_available(isas[i])) continue;
    size_t need = 0;
    CHECK(ef_required_arena_bytes(model, model_bytes, NULL, &need) == EF_OK, "size");
    void* arena = alloc64(need);
    log_sink sink = {{0}, 0};
    ef_options opt = {isas[i], log_to_sink, &sink, NULL, NULL, 1, 0, 1};
    ef_interpreter* it = NULL;
    CHECK(ef_create(model, model_bytes, arena, need, &opt, &it) == EF_INVALID_ARGUMENT &&
              sink.calls > 0,
          "unavailable %s accepted", ef_isa_name(isas[i]));
    free(arena);
    return;
  }
}

void test_errors(const uint8_t* model, size_t model_bytes, const tensor_pb* in) {
  printf("error paths:\n");
  test_bad_models(model, model_bytes);
  test_bad_arenas(model, model_bytes);
  test_bad_calls(model, model_bytes, in);
  test_names();
  test_unavailable_isa(model, model_bytes);
}
