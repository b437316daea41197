/* C11 test of the C API's training calls on the digits CNN compiled with --train: a few SGD
 * steps on one fixed batch must lower its loss, parameters must change in the arena, the
 * exported model must hold them, and bad labels, bad model bytes or a short arena must give a
 * status and a message.
 * usage: c_trainer_test TRAIN.efb */
#include <math.h>
#include <string.h>

#include "testing/c_api_test_util.h"

int g_failures = 0;

/* Deterministic pseudo-random inputs in [0, 1) (LCG), labels 0..classes-1 in turn. */
static void make_batch(float* x, size_t elems, int32_t* labels, size_t n, size_t classes) {
  uint32_t s = 12345u;
  for (size_t i = 0; i < elems; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = (float)(s >> 8) / 16777216.0f;
  }
  for (size_t i = 0; i < n; ++i) labels[i] = (int32_t)(i % classes);
}

/* The exported model loads into a second trainer holding exactly the first one's parameters
 * and statistics; a short output buffer is refused. */
static void check_export(const ef_trainer* t, size_t model_bytes, size_t need,
                         const ef_train_options* train, const ef_options* opt) {
  CHECK(ef_trainer_model_bytes(t) == model_bytes, "model_bytes %zu", ef_trainer_model_bytes(t));
  uint8_t* exported = (uint8_t*)alloc64(model_bytes);
  CHECK(ef_trainer_export_model(t, exported, model_bytes - 1) == EF_INVALID_ARGUMENT,
        "short buffer");
  CHECK(ef_trainer_export_model(t, exported, model_bytes) == EF_OK, "export");
  void* arena = alloc64(need);
  ef_trainer* u = NULL;
  ef_status s = ef_trainer_create(exported, model_bytes, arena, need, train, opt, &u);
  CHECK(s == EF_OK && u, "exported model: %s", ef_status_string(s));
  if (s == EF_OK) {
    CHECK(ef_trainer_num_parameters(u) == ef_trainer_num_parameters(t), "parameter count");
    for (size_t i = 0; i < ef_trainer_num_parameters(t); ++i) {
      ef_parameter a, b;
      CHECK(ef_trainer_parameter(t, i, &a) == EF_OK && ef_trainer_parameter(u, i, &b) == EF_OK,
            "param %zu", i);
      CHECK(a.elems == b.elems && memcmp(a.data, b.data, a.elems * sizeof(float)) == 0,
            "exported '%s' differs", a.name);
    }
  }
  free(arena);
  free(exported);
}

static int reject_all(void* user, const uint8_t* m, size_t n, const uint8_t* sig, size_t sig_n) {
  (void)m, (void)n, (void)sig, (void)sig_n;
  ++*(int*)user;
  return 0;
}

/* A fleet update record of t's statistics: refused by a second trainer when truncated, for
 * another model or with a signature the verifier rejects (its outputs unchanged); accepted
 * unsigned without a verifier, after which it holds t's running statistics. */
static void check_update(const ef_trainer* t, const uint8_t* model, size_t model_bytes, size_t need,
                         const ef_train_options* train, const ef_options* opt, const float* x) {
  const uint64_t hash = ef_model_hash(model, model_bytes);
  const size_t bytes = ef_trainer_update_bytes(t, 0, 0);
  uint8_t* record = (uint8_t*)malloc(bytes + 64);
  ef_update_info info;
  memset(&info, 0, sizeof info);
  info.model_hash = hash;
  info.round = 1;
  info.samples = 10;
  info.origin = 7;
  size_t written = 0;
  CHECK(bytes > 0 && ef_trainer_export_update(t, &info, record, bytes, &written) == EF_OK &&
            written == bytes,
        "export update: %zu of %zu bytes", written, bytes);
  void* arena = alloc64(need);
  ef_trainer* u = NULL;
  CHECK(ef_trainer_create(model, model_bytes, arena, need, train, opt, &u) == EF_OK, "second");
  const size_t out = ef_trainer_batch_size(u) * ef_trainer_num_classes(u);
  float* before = (float*)malloc(out * sizeof(float));
  float* after = (float*)malloc(out * sizeof(float));
  CHECK(ef_trainer_evaluate(u, x, before) == EF_OK, "evaluate");
  log_sink sink = {{0}, 0};
  int calls = 0;
  memset(record + bytes, 0xAB, 64); /* a signature nobody made */
  CHECK(ef_trainer_import_update(u, record, bytes + 64, hash, reject_all, &calls, NULL, log_to_sink,
                                 &sink) == EF_INVALID_ARGUMENT &&
            calls == 1 && strstr(sink.last, "signature") != NULL,
        "forged signature: %s", sink.last);
  CHECK(ef_trainer_import_update(u, record, bytes, hash, reject_all, &calls, NULL, log_to_sink,
                                 &sink) == EF_INVALID_ARGUMENT &&
            strstr(sink.last, "signature missing") != NULL,
        "unsigned with a verifier: %s", sink.last);
  CHECK(ef_trainer_import_update(u, record, bytes, hash + 1, NULL, NULL, NULL, log_to_sink,
                                 &sink) == EF_INVALID_ARGUMENT &&
            strstr(sink.last, "model hash") != NULL,
        "wrong model: %s", sink.last);
  CHECK(ef_trainer_import_update(u, record, bytes - 1, hash, NULL, NULL, NULL, log_to_sink,
                                 &sink) == EF_INVALID_ARGUMENT &&
            strstr(sink.last, "size") != NULL,
        "truncated: %s", sink.last);
  CHECK(
      ef_trainer_evaluate(u, x, after) == EF_OK && memcmp(before, after, out * sizeof(float)) == 0,
      "a refused record changed the outputs");
  ef_update_info got;
  CHECK(ef_trainer_import_update(u, record, bytes, hash, NULL, NULL, &got, NULL, NULL) == EF_OK &&
            got.round == 1 && got.origin == 7 && got.samples == 10,
        "import");
  for (size_t i = 0; i < ef_trainer_num_parameters(t); ++i) {
    ef_parameter a, b;
    if (ef_trainer_parameter(t, i, &a) != EF_OK || a.trainable) continue;
    CHECK(ef_trainer_parameter(u, i, &b) == EF_OK &&
              memcmp(a.data, b.data, a.elems * sizeof(float)) == 0,
          "statistic '%s' not imported", a.name);
  }
  printf("  update record: %zu B, refused forged/unsigned/wrong-model/truncated, applied\n", bytes);
  free(before);
  free(after);
  free(arena);
  free(record);
}

static void test_training(const uint8_t* model, size_t model_bytes) {
  log_sink sink = {{0}, 0};
  ef_options opt = {EF_ISA_AUTO, log_to_sink, &sink, NULL, NULL, 1, 0, 1};
  ef_train_options train;
  ef_train_options_init(&train);
  train.trainable = EF_TRAIN_BATCHNORM_AND_HEAD;
  train.learning_rate = 0.05f;
  size_t need = 0;
  ef_status s = ef_required_training_arena_bytes(model, model_bytes, &train, &opt, &need);
  CHECK(s == EF_OK && need > 0, "training arena: %s (%s)", ef_status_string(s), sink.last);
  void* arena = alloc64(need);
  ef_trainer* t = NULL;
  s = ef_trainer_create(model, model_bytes, arena, need, &train, &opt, &t);
  CHECK(s == EF_OK && t, "trainer_create: %s (%s)", ef_status_string(s), sink.last);
  if (s != EF_OK) {
    free(arena);
    return;
  }
  const size_t n = ef_trainer_batch_size(t), classes = ef_trainer_num_classes(t);
  const size_t elems = n * ef_trainer_sample_elems(t);
  float* x = (float*)malloc(elems * sizeof(float));
  float* logits = (float*)malloc(n * classes * sizeof(float));
  int32_t* labels = (int32_t*)malloc(n * sizeof(int32_t));
  make_batch(x, elems, labels, n, classes);

  ef_parameter p0;
  CHECK(ef_trainer_num_parameters(t) > 0 && ef_trainer_parameter(t, 0, &p0) == EF_OK, "params");
  const float before = p0.data[0];
  float first_loss = 0, loss = 0;
  int correct = 0;
  for (int step = 0; step < 30; ++step) {
    s = ef_trainer_step(t, x, labels, &loss, &correct);
    CHECK(s == EF_OK && isfinite(loss), "step %d: %s (%s)", step, ef_status_string(s), sink.last);
    if (step == 0) first_loss = loss;
  }
  printf("  batch %zu, %zu classes, arena %zu B: loss %.4f -> %.4f, %d/%zu correct\n", n, classes,
         need, first_loss, loss, correct, n);
  CHECK(loss < 0.5f * first_loss, "loss did not drop: %.4f -> %.4f", first_loss, loss);
  CHECK(p0.data[0] != before || ef_trainer_num_parameters(t) > 1, "parameter 0 '%s' unchanged",
        p0.name);
  CHECK(ef_trainer_adapt_statistics(t, x) == EF_OK, "adapt");
  CHECK(ef_trainer_evaluate(t, x, logits) == EF_OK && isfinite(logits[0]), "evaluate");
  ef_stream_options stream;
  ef_stream_options_init(&stream);
  ef_stream_report report = {0, 0, 0, 0};
  CHECK(ef_trainer_stream_step(t, x, logits, &stream, &report) == EF_OK && isfinite(logits[0]),
        "stream step");
  /* The graph's batch (1: compiled with the default --infer-batch), not the training batch. */
  CHECK(report.entropy >= 0.0f && report.entropy <= 1.0f && report.samples == 1,
        "stream report: %f, %u", (double)report.entropy, (unsigned)report.samples);
  stream.window = 0; /* out of range: refused, with a message */
  CHECK(ef_trainer_stream_step(t, x, logits, &stream, NULL) == EF_INVALID_ARGUMENT,
        "window 0 accepted");
  ef_trainer_reset_stream(t);
  labels[0] = (int32_t)classes; /* out of range */
  CHECK(ef_trainer_step(t, x, labels, NULL, NULL) != EF_OK && sink.calls > 0, "label %zu accepted",
        classes);
  CHECK(ef_trainer_step(NULL, x, labels, NULL, NULL) == EF_INVALID_ARGUMENT, "null trainer");
  check_export(t, model_bytes, need, &train, &opt);
  check_update(t, model, model_bytes, need, &train, &opt, x);
  free(x);
  free(logits);
  free(labels);
  free(arena);
}

/* Garbage bytes and a short arena give a status and a message, and no trainer. */
static void test_bad_inputs(const uint8_t* model, size_t model_bytes) {
  log_sink sink = {{0}, 0};
  ef_options opt = {EF_ISA_AUTO, log_to_sink, &sink, NULL, NULL, 1, 0, 1};
  uint8_t* junk = (uint8_t*)alloc64(256);
  memset(junk, 0x5A, 256);
  void* arena = alloc64(1 << 20);
  ef_trainer* t = (ef_trainer*)arena;
  ef_status s = ef_trainer_create(junk, 256, arena, 1 << 20, NULL, &opt, &t);
  CHECK(s == EF_INVALID_MODEL && t == NULL && sink.calls > 0, "garbage: %s", ef_status_string(s));
  printf("  garbage model -> %s: %s\n", ef_status_string(s), sink.last);
  size_t need = 0;
  CHECK(ef_required_training_arena_bytes(model, model_bytes, NULL, NULL, &need) == EF_OK, "size");
  s = ef_trainer_create(model, model_bytes, arena, need - 64, NULL, &opt, &t);
  CHECK(s == EF_ARENA_TOO_SMALL && t == NULL, "short arena: %s", ef_status_string(s));
  printf("  arena one block short -> %s: %s\n", ef_status_string(s), sink.last);
  free(junk);
  free(arena);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  size_t train_bytes = 0;
  uint8_t* train_model = read_model(argv[1], &train_bytes);
  if (!train_model) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  test_training(train_model, train_bytes);
  test_bad_inputs(train_model, train_bytes);
  free(train_model);
  if (g_failures) return 1;
  printf("OK: C training API\n");
  return 0;
}
