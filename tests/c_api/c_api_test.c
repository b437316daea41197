/* C11 test of edgefold.h: runs a compiled golden case through the C API on every available
 * ISA and compares with PyTorch's output; then checks every error path returns a status and
 * logs a message instead of crashing.
 * usage: c_api_test MODEL.efb INPUT_0.pb OUTPUT_0.pb */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing/c_api_test_util.h"
#include "edgefold/edgefold.h"
#include "testing/tensor_pb.h"

int g_failures = 0;

/* Runs the model on one ISA; returns the max error relative to max(1, max|expected|). */
static double run_on_isa(const uint8_t* model, size_t model_bytes, ef_isa isa,
                         const tensor_pb* in, const tensor_pb* expected) {
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
  CHECK(s == EF_OK && it != NULL, "create on %s: %s (%s)", ef_isa_name(isa),
        ef_status_string(s), sink.last);
  if (s != EF_OK) { free(arena); return INFINITY; }
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
  const ef_isa isas[] = {EF_ISA_AUTO, EF_ISA_SCALAR, EF_ISA_SSE42, EF_ISA_AVX2_FMA,
                         EF_ISA_AVX512, EF_ISA_NEON};
  CHECK(ef_isa_available(EF_ISA_SCALAR), "scalar must always be available");
  for (size_t i = 0; i < sizeof isas / sizeof isas[0]; ++i) {
    if (isas[i] != EF_ISA_AUTO && !ef_isa_available(isas[i])) continue;
    const double err = run_on_isa(model, model_bytes, isas[i], in, out);
    CHECK(err <= 1e-4, "%s: relative error %.3g vs PyTorch", ef_isa_name(isas[i]), err);
  }
}

void test_errors(const uint8_t* model, size_t model_bytes, const tensor_pb* in);

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s MODEL.efb INPUT_0.pb OUTPUT_0.pb\n", argv[0]);
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
