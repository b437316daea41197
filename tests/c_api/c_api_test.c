/* C11 test of edgefold.h: runs a compiled golden case through the C API on every available
 * ISA and compares with PyTorch's output; then checks every error path returns a status and
 * logs a message instead of crashing.
 * usage: c_api_test MODEL.efb INPUT_0.pb OUTPUT_0.pb [splits]
 * (`splits`: the model has ops large enough to split over threads, e.g. convs over planes) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing/c_api_test_util.h"
#include "edgefold/edgefold.h"
#include "testing/tensor_pb.h"

int g_failures = 0;

/* Runs the model on one ISA; returns the max error relative to max(1, max|expected|). */
static double run_on_isa(const uint8_t* model, size_t model_bytes, ef_isa isa, const tensor_pb* in,
                         const tensor_pb* expected) {
  log_sink sink = {{0}, 0};
  ef_options opt;
  ef_options_init(&opt);
  opt.isa = isa;
  opt.log = log_to_sink;
  opt.log_user = &sink;
  size_t need = 0;
  ef_status s = ef_required_arena_bytes(model, model_bytes, &opt, &need);
  CHECK(s == EF_OK && need > 0, "required_arena_bytes: %s", ef_status_string(s));
  void* arena = alloc64(need);
  ef_interpreter* it = NULL;
  s = ef_create(model, model_bytes, arena, need, &opt, &it);
  CHECK(s == EF_OK && it != NULL, "create on %s: %s (%s)", ef_isa_name(isa), ef_status_string(s),
        sink.last);
  if (s != EF_OK) {
    free(arena);
    return INFINITY;
  }
  CHECK(ef_num_inputs(it) == 1 && ef_num_outputs(it) == 1, "io counts");
  CHECK(ef_arena_used_bytes(it) <= need, "used %zu > required %zu", ef_arena_used_bytes(it), need);
  ef_tensor x;
  CHECK(ef_get_input(it, 0, &x) == EF_OK && x.elems == in->elems, "input elems");
  s = ef_set_input(it, 0, in->data, in->elems);
  CHECK(s == EF_OK, "set_input: %s", ef_status_string(s));
  s = ef_invoke(it);
  CHECK(s == EF_OK, "invoke: %s", ef_status_string(s));
  ef_tensor y;
  s = ef_get_output(it, 0, &y);
  CHECK(s == EF_OK && y.elems == expected->elems && y.rank == expected->rank, "output shape");
  for (int d = 0; s == EF_OK && d < y.rank && d < expected->rank; ++d)
    CHECK(y.shape[d] == expected->dims[d], "dim %d: %d vs %lld", d, (int)y.shape[d],
          (long long)expected->dims[d]);
  double max_err = 0, max_ref = 1;
  for (size_t i = 0; s == EF_OK && i < y.elems && i < expected->elems; ++i) {
    max_err = fmax(max_err, fabs((double)y.data[i] - expected->data[i]));
    max_ref = fmax(max_ref, fabs((double)expected->data[i]));
  }
  CHECK(sink.calls == 0, "log called on success: %s", sink.last);
  printf("  %-9s kernels=%s arena=%zu B max_rel_err=%.3g\n", ef_isa_name(isa),
         ef_kernel_isa_name(it), need, max_err / max_ref);
  free(arena);
  return max_err / max_ref;
}

static void test_golden(const uint8_t* model, size_t model_bytes, const tensor_pb* in,
                        const tensor_pb* out) {
  const ef_isa isas[] = {EF_ISA_AUTO,     EF_ISA_SCALAR, EF_ISA_SSE42,
                         EF_ISA_AVX2_FMA, EF_ISA_AVX512, EF_ISA_NEON};
  CHECK(ef_isa_available(EF_ISA_SCALAR), "scalar must always be available");
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; ++i) {
    if (isas[i] != EF_ISA_AUTO && !ef_isa_available(isas[i])) continue;
    const double err = run_on_isa(model, model_bytes, isas[i], in, out);
    CHECK(err <= 1e-4, "%s: relative error %.3g vs PyTorch", ef_isa_name(isas[i]), err);
  }
}

/* Runs the tasks on the calling thread, last first, counting the calls in *user. */
static void reverse_serial(void* user, size_t tasks, void (*run)(void*, size_t), void* ctx) {
  ++*(size_t*)user;
  for (size_t i = tasks; i-- > 0;) run(ctx, i);
}

/* ef_invocations and ef_split_invocations of run_with's last interpreter. */
static size_t g_invocations, g_split_invocations;

/* The output with `opt` after three runs, copied (NULL on failure); *elems gets its size. */
static float* run_with(const uint8_t* model, size_t model_bytes, const ef_options* opt,
                       const tensor_pb* in, size_t* elems) {
  size_t need = 0;
  float* out = NULL;
  *elems = 0;
  if (ef_required_arena_bytes(model, model_bytes, opt, &need) != EF_OK) return NULL;
  void* arena = alloc64(need);
  ef_interpreter* it = NULL;
  ef_tensor y;
  if (ef_create(model, model_bytes, arena, need, opt, &it) == EF_OK &&
      ef_set_input(it, 0, in->data, in->elems) == EF_OK && ef_invoke(it) == EF_OK &&
      ef_invoke(it) == EF_OK && ef_invoke(it) == EF_OK && ef_get_output(it, 0, &y) == EF_OK) {
    g_invocations = ef_invocations(it);
    g_split_invocations = ef_split_invocations(it);
    out = malloc(y.elems * sizeof(float));
    memcpy(out, y.data, y.elems * sizeof(float));
    *elems = y.elems;
  }
  free(arena);
  return out;
}

/* ef_options' threads: 3 tasks per op through the caller's parallel_for (every op with several
 * output rows split: one multiply-add per task at least) give the single-thread output bit for
 * bit, and call it when the model `splits`; with a task minimum no op reaches, never. */
static void test_threads(const uint8_t* model, size_t model_bytes, const tensor_pb* in,
                         int splits) {
  ef_options one;
  ef_options_init(&one);
  CHECK(one.parallel_for == NULL && one.num_threads == 1 && one.min_task_work == 0 &&
            one.adapt_splits == 1,
        "threads defaults");
  size_t n_want = 0, n_got = 0, calls = 0;
  float* want = run_with(model, model_bytes, &one, in, &n_want);
  CHECK(g_invocations == 3 && g_split_invocations == 0, "one thread: %zu of %zu runs split",
        g_split_invocations, g_invocations);
  ef_options opt = one;
  opt.parallel_for = reverse_serial;
  opt.parallel_user = &calls;
  opt.num_threads = 3;
  opt.min_task_work = 1;
  float* got = run_with(model, model_bytes, &opt, in, &n_got);
  CHECK(want != NULL && got != NULL && n_want == n_got, "threaded run");
  CHECK(want && got && memcmp(want, got, n_want * sizeof(float)) == 0,
        "3 tasks differ from 1 thread");
  if (splits) CHECK(calls > 0, "parallel_for never called");
  /* adapt_splits (the default) runs the first two split (the second timed), the third alone. */
  CHECK(g_invocations == 3 && g_split_invocations == 2, "adaptive: %zu of %zu runs split",
        g_split_invocations, g_invocations);
  free(got);
  opt.adapt_splits = 0;
  got = run_with(model, model_bytes, &opt, in, &n_got);
  CHECK(got && n_got == n_want && memcmp(want, got, n_want * sizeof(float)) == 0,
        "fixed-split run differs");
  CHECK(g_invocations == 3 && g_split_invocations == 3, "fixed splits: %zu of %zu runs split",
        g_split_invocations, g_invocations);
  opt.adapt_splits = 1;
  free(got);
  calls = 0;
  opt.min_task_work = (size_t)1 << 60;
  got = run_with(model, model_bytes, &opt, in, &n_got);
  CHECK(got && n_got == n_want && memcmp(want, got, n_want * sizeof(float)) == 0,
        "unsplit run differs");
  CHECK(calls == 0, "parallel_for called %zu times below min_task_work", calls);
  free(got);
  free(want);
}

void test_errors(const uint8_t* model, size_t model_bytes, const tensor_pb* in);

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && strcmp(argv[4], "splits") == 0)) {
    fprintf(stderr, "usage: %s MODEL.efb INPUT_0.pb OUTPUT_0.pb [splits]\n", argv[0]);
    return 2;
  }
  size_t model_bytes = 0;
  uint8_t* model = read_model(argv[1], &model_bytes);
  char error[512];
  tensor_pb in, out;
  if (!model || tensor_pb_read(argv[2], &in, error, sizeof error) ||
      tensor_pb_read(argv[3], &out, error, sizeof error)) {
    fprintf(stderr, "cannot load test data: %s\n", model ? error : argv[1]);
    return 1;
  }
  printf("%s (%zu bytes):\n", argv[1], model_bytes);
  test_golden(model, model_bytes, &in, &out);
  test_threads(model, model_bytes, &in, argc == 5);
  test_errors(model, model_bytes, &in);
  tensor_pb_free(&in);
  tensor_pb_free(&out);
  free(model);
  if (g_failures) {
    fprintf(stderr, "%d check(s) failed\n", g_failures);
    return 1;
  }
  printf("OK: C API matches PyTorch, error paths return statuses\n");
  return 0;
}
