/* An embedded-style C program using the installed runtime through edgefold.h:
 * loads MODEL.efb, runs it on an input of ones, prints the output checksum.
 * usage: run_c MODEL.efb */
#include <stdio.h>
#include <stdlib.h>

#include "edgefold/edgefold.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 1;
  fseek(f, 0, SEEK_END);
  const size_t model_bytes = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* model = aligned_alloc(EF_ARENA_ALIGNMENT, (model_bytes + 63) / 64 * 64);
  if (fread(model, 1, model_bytes, f) != model_bytes) return 1;
  fclose(f);
  size_t arena_bytes = 0;
  ef_status s = ef_required_arena_bytes(model, model_bytes, NULL, &arena_bytes);
  void* arena = aligned_alloc(EF_ARENA_ALIGNMENT, (arena_bytes + 63) / 64 * 64);
  ef_interpreter* it = NULL;
  if (s == EF_OK) s = ef_create(model, model_bytes, arena, arena_bytes, NULL, &it);
  ef_tensor x, y;
  if (s == EF_OK) s = ef_get_input(it, 0, &x);
  for (size_t i = 0; s == EF_OK && i < x.elems; ++i) x.data[i] = 1.0f;
  if (s == EF_OK) s = ef_invoke(it);
  if (s == EF_OK) s = ef_get_output(it, 0, &y);
  if (s != EF_OK) {
    fprintf(stderr, "run_c: %s\n", ef_status_string(s));
    return 1;
  }
  double sum = 0;
  for (size_t i = 0; i < y.elems; ++i) sum += y.data[i];
  printf("checksum %.5f over %zu outputs\n", sum, y.elems);
  free(arena);
  free(model);
  return 0;
}
