/* C11 test of the C API's int8 adaptation calls on the digits CNN compiled with --quantize int8
 * --adaptable: adapting on drifted inputs moves the running statistics and the outputs, reset
 * brings back the deployed outputs bit for bit, and a model that cannot adapt, a bad mode or a
 * null adapter give a status.
 * usage: c_int8_adapter_test ADAPTABLE.efb FLOAT.efb */
#include <string.h>

#include "testing/c_api_test_util.h"

int g_failures = 0;

/* Deterministic images in [0.35, 0.8): the digits' contrast and brightness drift. */
static void make_drifted(float* x, size_t elems, uint32_t seed) {
  uint32_t s = seed;
  for (size_t i = 0; i < elems; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = 0.35f + 0.45f * (float)(s >> 8) / 16777216.0f;
  }
}

static void run_outputs(ef_interpreter* it, const float* x, size_t elems, float* out,
                        size_t out_elems) {
  ef_tensor y;
  CHECK(ef_set_input(it, 0, x, elems) == EF_OK && ef_invoke(it) == EF_OK &&
            ef_get_output(it, 0, &y) == EF_OK && y.elems == out_elems,
        "inference");
  memcpy(out, y.data, out_elems * sizeof(float));
}

static void test_adapt(const uint8_t* model, size_t model_bytes) {
  log_sink sink = {{0}, 0};
  ef_options opt = {EF_ISA_AUTO, log_to_sink, &sink, NULL, NULL, 1, 0, 1};
  size_t need = 0;
  ef_status s = ef_required_int8_adapter_arena_bytes(model, model_bytes, &opt, &need);
  CHECK(s == EF_OK && need > 0, "adapter arena: %s (%s)", ef_status_string(s), sink.last);
  void* arena = alloc64(need);
  ef_int8_adapter* a = NULL;
  s = ef_int8_adapter_create(model, model_bytes, arena, need, &opt, &a);
  CHECK(s == EF_OK && a, "int8_adapter_create: %s (%s)", ef_status_string(s), sink.last);
  if (s != EF_OK) {
    free(arena);
    return;
  }
  ef_interpreter* it = ef_int8_adapter_interpreter(a);
  ef_tensor in, y;
  CHECK(ef_get_input(it, 0, &in) == EF_OK && ef_get_output(it, 0, &y) == EF_OK, "views");
  const size_t elems = in.elems, out_elems = y.elems;
  float* x = (float*)malloc(elems * sizeof(float));
  float* deployed = (float*)malloc(out_elems * sizeof(float));
  float* adapted = (float*)malloc(out_elems * sizeof(float));
  float* again = (float*)malloc(out_elems * sizeof(float));
  make_drifted(x, elems, 7u);
  run_outputs(it, x, elems, deployed, out_elems);

  const size_t layers = ef_int8_adapter_num_layers(a);
  const float* mean = NULL;
  size_t channels = 0, batches = 0;
  CHECK(layers == 4 && ef_int8_adapter_layer(a, 0, &mean, NULL, &channels, &batches) == EF_OK &&
            batches == 0,
        "layers %zu", layers);
  const float deployed_mean = mean[0];
  for (uint32_t b = 0; b < 20; ++b) {
    make_drifted(x, elems, 100u + b);
    s = ef_int8_adapter_adapt(a, EF_STATS_CUMULATIVE_AVERAGE, 0.0f);
    CHECK(s == EF_OK, "adapt %u: %s (%s)", b, ef_status_string(s), sink.last);
  }
  CHECK(ef_int8_adapter_layer(a, 0, &mean, NULL, &channels, &batches) == EF_OK && batches == 20 &&
            mean[0] != deployed_mean,
        "statistics did not move: %zu batches", batches);
  make_drifted(x, elems, 7u);
  run_outputs(it, x, elems, adapted, out_elems);
  CHECK(memcmp(adapted, deployed, out_elems * sizeof(float)) != 0,
        "outputs unchanged by adaptation");
  printf("  %zu layers, %zu channels in the first, arena %zu B: its mean %.4f -> %.4f\n", layers,
         channels, need, (double)deployed_mean, (double)mean[0]);

  ef_int8_adapter_reset(a);
  run_outputs(it, x, elems, again, out_elems);
  CHECK(memcmp(again, deployed, out_elems * sizeof(float)) == 0,
        "reset did not restore the deployed outputs");
  CHECK(ef_int8_adapter_adapt(a, EF_STATS_MOMENTUM, 0.0f) == EF_INVALID_ARGUMENT,
        "momentum 0 accepted");
  CHECK(ef_int8_adapter_adapt(a, (ef_stats_mode)7, 0.1f) == EF_INVALID_ARGUMENT, "mode 7 accepted");
  CHECK(ef_int8_adapter_adapt(NULL, EF_STATS_MOMENTUM, 0.1f) == EF_INVALID_ARGUMENT,
        "null adapter");
  CHECK(ef_int8_adapter_layer(a, layers, NULL, NULL, NULL, NULL) == EF_INVALID_ARGUMENT,
        "layer out of range");
  free(x);
  free(deployed);
  free(adapted);
  free(again);
  free(arena);
}

/* A float model has nothing to adapt: a status and a message saying how to compile one. */
static void test_float_model(const uint8_t* model, size_t model_bytes) {
  log_sink sink = {{0}, 0};
  ef_options opt = {EF_ISA_AUTO, log_to_sink, &sink, NULL, NULL, 1, 0, 1};
  size_t need = 0;
  CHECK(ef_required_int8_adapter_arena_bytes(model, model_bytes, &opt, &need) == EF_OK, "size");
  void* arena = alloc64(need);
  ef_int8_adapter* a = (ef_int8_adapter*)arena;
  const ef_status s = ef_int8_adapter_create(model, model_bytes, arena, need, &opt, &a);
  CHECK(s == EF_INVALID_ARGUMENT && a == NULL && strstr(sink.last, "--adaptable") != NULL,
        "float model: %s (%s)", ef_status_string(s), sink.last);
  printf("  float model -> %s: %s\n", ef_status_string(s), sink.last);
  free(arena);
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  size_t bytes = 0, float_bytes = 0;
  uint8_t* model = read_model(argv[1], &bytes);
  uint8_t* float_model = read_model(argv[2], &float_bytes);
  if (!model || !float_model) {
    fprintf(stderr, "cannot read the models\n");
    return 1;
  }
  test_adapt(model, bytes);
  test_float_model(float_model, float_bytes);
  free(model);
  free(float_model);
  if (g_failures) return 1;
  printf("OK: C int8 adaptation API\n");
  return 0;
}
