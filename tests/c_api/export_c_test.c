/* The header `edgefold export-c` writes, compiled as C11 into a firmware-style program: the
 * model is a 64-byte aligned const array, the arena a static buffer of MODEL_ARENA_BYTES;
 * the result must equal PyTorch's output for the golden case.
 * usage: export_c_test OUTPUT_0.pb INPUT_0.pb */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "edgefold/edgefold.h"
#include "model_data.h"
#include "testing/tensor_pb.h"

_Alignas(64) static uint8_t g_arena[MODEL_ARENA_BYTES];

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  tensor_pb expected, input;
  char error[256];
  if (tensor_pb_read(argv[1], &expected, error, sizeof error) ||
      tensor_pb_read(argv[2], &input, error, sizeof error)) {
    fprintf(stderr, "%s\n", error);
    return 1;
  }
  if (((uintptr_t)model_model) % 64 != 0) {
    fprintf(stderr, "model array is not 64-byte aligned\n");
    return 1;
  }
  size_t need = 0;
  ef_interpreter* it = NULL;
  if (ef_required_arena_bytes(model_model, MODEL_MODEL_BYTES, NULL, &need) != EF_OK ||
      need > MODEL_ARENA_BYTES ||
      ef_create(model_model, MODEL_MODEL_BYTES, g_arena, sizeof g_arena, NULL, &it) != EF_OK ||
      ef_set_input(it, 0, input.data, input.elems) != EF_OK || ef_invoke(it) != EF_OK) {
    fprintf(stderr, "running the exported model failed (need %zu, have %u)\n", need,
            MODEL_ARENA_BYTES);
    tensor_pb_free(&expected);
    tensor_pb_free(&input);
    return 1;
  }
  ef_tensor y;
  const int ok = ef_get_output(it, 0, &y) == EF_OK && y.elems == expected.elems;
  tensor_pb_free(&input);
  if (!ok) {
    tensor_pb_free(&expected);
    return 1;
  }
  double err = 0, scale = 1;
  for (size_t i = 0; i < y.elems; ++i) {
    scale = fmax(scale, fabs(expected.data[i]));
    err = fmax(err, fabs((double)y.data[i] - expected.data[i]));
  }
  tensor_pb_free(&expected);
  printf("export-c model in C: %zu outputs, max error %.3g\n", y.elems, err / scale);
  if (err / scale > 1e-4) return 1;
  printf("OK: exported C array runs\n");
  return 0;
}
