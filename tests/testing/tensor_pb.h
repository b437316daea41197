/* Reads an ONNX TensorProto file (.pb, float32 stored as raw_data) in plain C, so the C API
 * test can use the golden cases' PyTorch inputs and outputs as its oracle. */
#ifndef EDGEFOLD_TESTS_TENSOR_PB_H_
#define EDGEFOLD_TESTS_TENSOR_PB_H_
#include <stddef.h>
#include <stdint.h>

#define TENSOR_PB_MAX_RANK 8

typedef struct tensor_pb {
  int64_t dims[TENSOR_PB_MAX_RANK];
  int rank;
  float* data; /* malloc'ed; free with tensor_pb_free */
  size_t elems;
} tensor_pb;

/* 0 on success; on failure a message in `error` (names the file and the field). */
int tensor_pb_read(const char* path, tensor_pb* out, char* error, size_t error_bytes);
void tensor_pb_free(tensor_pb* t);

#endif
