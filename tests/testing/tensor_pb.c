/* Protobuf wire format, just enough for TensorProto: field 1 dims (varint, packed or not),
 * field 2 data_type (1 = FLOAT), field 9 raw_data (bytes, little-endian floats). Other fields
 * are skipped by wire type. */
#include "testing/tensor_pb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
  const uint8_t* p;
  const uint8_t* end;
} reader;

static int read_varint(reader* r, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && r->p < r->end; shift += 7) {
    const uint8_t b = *r->p++;
    *v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return 0;
  }
  return -1;
}

static int read_file(const char* path, uint8_t** bytes, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  *bytes = (uint8_t*)malloc(size > 0 ? (size_t)size : 1);
  *n = fread(*bytes, 1, (size_t)size, f);
  fclose(f);
  return *n == (size_t)size ? 0 : -1;
}

/* One field; returns 0, or -1 on a malformed buffer. */
static int read_field(reader* r, tensor_pb* t, uint64_t* data_type, const uint8_t** raw,
                      size_t* raw_bytes) {
  uint64_t key, v, len;
  if (read_varint(r, &key)) return -1;
  const int field = (int)(key >> 3), wire = (int)(key & 7);
  if (wire == 0) {
    if (read_varint(r, &v)) return -1;
    if (field == 1 && t->rank < TENSOR_PB_MAX_RANK) t->dims[t->rank++] = (int64_t)v;
    if (field == 2) *data_type = v;
    return 0;
  }
  if (wire == 1 || wire == 5) {
    const size_t skip = wire == 1 ? 8 : 4;
    if ((size_t)(r->end - r->p) < skip) return -1;
    r->p += skip;
    return 0;
  }
  if (wire != 2 || read_varint(r, &len) || len > (uint64_t)(r->end - r->p)) return -1;
  if (field == 1) { /* packed dims */
    reader sub = {r->p, r->p + len};
    while (sub.p < sub.end && t->rank < TENSOR_PB_MAX_RANK) {
      if (read_varint(&sub, &v)) return -1;
      t->dims[t->rank++] = (int64_t)v;
    }
  }
  if (field == 9) {
    *raw = r->p;
    *raw_bytes = (size_t)len;
  }
  r->p += len;
  return 0;
}

int tensor_pb_read(const char* path, tensor_pb* out, char* error, size_t error_bytes) {
  memset(out, 0, sizeof *out);
  uint8_t* bytes = NULL;
  size_t n = 0;
  if (read_file(path, &bytes, &n)) {
    snprintf(error, error_bytes, "%s: cannot read", path);
    free(bytes);
    return -1;
  }
  reader r = {bytes, bytes + n};
  uint64_t data_type = 0;
  const uint8_t* raw = NULL;
  size_t raw_bytes = 0;
  int rc = 0;
  while (r.p < r.end && rc == 0) rc = read_field(&r, out, &data_type, &raw, &raw_bytes);
  size_t elems = 1;
  for (int i = 0; i < out->rank; ++i) elems *= (size_t)out->dims[i];
  if (rc || data_type != 1 || raw == NULL || raw_bytes != elems * sizeof(float)) {
    snprintf(error, error_bytes,
             "%s: not a float32 TensorProto with raw_data "
             "(data_type %llu, raw_data %zu bytes, dims product %zu)",
             path, (unsigned long long)data_type, raw_bytes, elems);
    free(bytes);
    return -1;
  }
  out->data = (float*)malloc(raw_bytes ? raw_bytes : 1);
  memcpy(out->data, raw, raw_bytes); /* little-endian host assumed, as in the runtime */
  out->elems = elems;
  free(bytes);
  return 0;
}

void tensor_pb_free(tensor_pb* t) {
  free(t->data);
  t->data = NULL;
}
