/* edgefold C API: run (and fine-tune) a compiled .efb model from C firmware.
 *
 * A thin layer over the C++ runtime (edgefold/interpreter.h, edgefold/trainer.h) with the
 * same contracts:
 * - `model` bytes are borrowed, never copied: they must start at a 64-byte boundary and stay
 *   valid and unchanged while the interpreter/trainer is used (flash or a mapped file is fine).
 * - `arena` is borrowed too, must be 64-byte aligned (EF_ARENA_ALIGNMENT) and at least the
 *   size ef_required_arena_bytes() reports. The interpreter lives inside the arena: there is
 *   no heap allocation, and nothing to destroy; drop the arena when done.
 * - Every fallible call returns an ef_status; ef_status_string() names it. Details (which
 *   op, which tensor, how many bytes) go to the log callback in ef_options, if set.
 *
 * Typical use:
 *   ef_options opt; ef_options_init(&opt);
 *   size_t need; ef_required_arena_bytes(model, model_bytes, &opt, &need);
 *   ef_interpreter* it; ef_create(model, model_bytes, arena, sizeof arena, &opt, &it);
 *   ef_set_input(it, 0, x, x_elems); ef_invoke(it);
 *   ef_tensor y; ef_get_output(it, 0, &y);   // y.data points into the arena
 */
#ifndef EDGEFOLD_EDGEFOLD_H_
#define EDGEFOLD_EDGEFOLD_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EF_ARENA_ALIGNMENT 64
#define EF_MAX_RANK 6

/* Same values as edgefold::Status: the high byte is the category. */
typedef enum ef_status {
  EF_OK = 0,
  EF_INVALID_MODEL = 0x0100,
  EF_UNSUPPORTED_VERSION = 0x0101,
  EF_MISALIGNED_MODEL = 0x0102,
  EF_UNSUPPORTED_OP = 0x0200,
  EF_SHAPE_MISMATCH = 0x0300,
  EF_ARENA_TOO_SMALL = 0x0400,
  EF_MISALIGNED_ARENA = 0x0401,
  EF_INVALID_ARGUMENT = 0x0500,
  EF_NUMERIC_ERROR = 0x0600,
  EF_BAD_STATE = 0x0700
} ef_status;

/* Kernel dispatch levels, as edgefold::Isa. */
typedef enum ef_isa {
  EF_ISA_AUTO = 0,
  EF_ISA_SCALAR,
  EF_ISA_SSE42,
  EF_ISA_AVX2_FMA,
  EF_ISA_AVX512,
  EF_ISA_NEON
} ef_isa;

/* Receives one null-terminated message per error; called only on failure paths. */
typedef void (*ef_log_fn)(void* user, const char* message);

/* Threads supplied by the caller (pthreads, an RTOS's tasks): must call run(ctx, i) exactly once
 * for every i < tasks, in any order and on any threads, and return when all have returned.
 * Called from ef_invoke only, never re-entrantly; the runtime allocates nothing for it. Tasks
 * keep kernel buffers on the stack: at least 160 KiB per thread on x86 with AVX-512, 96 KiB
 * with AVX2 or SSE (edgefold/interpreter.h, ParallelForFn). */
typedef void (*ef_parallel_for_fn)(void* user, size_t tasks, void (*run)(void* ctx, size_t task),
                                   void* ctx);

typedef struct ef_options {
  ef_isa isa;     /* EF_ISA_AUTO = best level this CPU supports */
  ef_log_fn log;  /* NULL = silent */
  void* log_user; /* passed back to `log` */
  /* Up to num_threads tasks per op through parallel_for (NULL or num_threads <= 1: the calling
   * thread only). Work is split over independent outputs, never over a sum: the outputs are
   * bit-identical for any thread count. min_task_work: fewest multiply-adds an op hands to one
   * task, 0 = the runtime's default (edgefold::Options::min_task_work). adapt_splits (default
   * 1): time runs split and on the calling thread alone and keep the faster
   * (edgefold::Options::adapt_splits); 0: every op splits as min_task_work allows. */
  ef_parallel_for_fn parallel_for;
  void* parallel_user;
  size_t num_threads;
  size_t min_task_work;
  int adapt_splits;
} ef_options;

/* Element types, as edgefold::DType. */
typedef enum ef_dtype { EF_FLOAT32 = 0, EF_INT32 = 1, EF_INT8 = 2 } ef_dtype;

/* One graph input or output. `data` and `shape` point into the arena / the model. A model
 * compiled with `--io int8` has int8 inputs and outputs: `data` is NULL, `data_s8` holds the
 * elements and real = (q - zero_point) * scale. Float tensors: data_s8 NULL, scale 0. */
typedef struct ef_tensor {
  float* data;
  const int32_t* shape;
  int rank;
  size_t elems;
  const char* name;
  ef_dtype dtype;
  int8_t* data_s8;
  float scale;
  int32_t zero_point;
} ef_tensor;

typedef struct ef_interpreter ef_interpreter; /* opaque; lives inside the arena */

/* Fills `options` with the defaults (auto ISA, no log). */
void ef_options_init(ef_options* options);
/* "ok", "arena too small", ...; never NULL. */
const char* ef_status_string(ef_status status);
/* "auto", "scalar", "sse4.2", "avx2+fma", "avx512", "neon". */
const char* ef_isa_name(ef_isa isa);
/* Nonzero when `isa` is compiled into this build and supported by this CPU. */
int ef_isa_available(ef_isa isa);

/* Arena bytes ef_create will need for this model. `options` may be NULL. */
ef_status ef_required_arena_bytes(const uint8_t* model, size_t model_bytes,
                                  const ef_options* options, size_t* arena_bytes);
/* Verifies the model, places the interpreter in `arena`, prepares every op. */
ef_status ef_create(const uint8_t* model, size_t model_bytes, void* arena, size_t arena_bytes,
                    const ef_options* options, ef_interpreter** out);

size_t ef_num_inputs(const ef_interpreter* interpreter);
size_t ef_num_outputs(const ef_interpreter* interpreter);
/* Copies `elems` floats into input `index` after checking the count. An int8 input (model
 * compiled with --io int8) is refused with EF_INVALID_ARGUMENT. */
ef_status ef_set_input(ef_interpreter* interpreter, size_t index, const float* data, size_t elems);
/* Copies `elems` int8 values (in the input's scale and zero point) into int8 input `index`;
 * a float input is refused with EF_INVALID_ARGUMENT. */
ef_status ef_set_input_s8(ef_interpreter* interpreter, size_t index, const int8_t* data,
                          size_t elems);
/* Quantizes `elems` floats into int8 input `index` by the Quantize op's rule (host helper). */
ef_status ef_quantize_input(ef_interpreter* interpreter, size_t index, const float* data,
                            size_t elems);
/* Writes output `index` as `elems` floats: an int8 output dequantized, a float one copied. */
ef_status ef_dequantize_output(const ef_interpreter* interpreter, size_t index, float* out,
                               size_t elems);
ef_status ef_get_input(const ef_interpreter* interpreter, size_t index, ef_tensor* out);
ef_status ef_invoke(ef_interpreter* interpreter);
/* A view of output `index`, valid until the next ef_invoke. */
ef_status ef_get_output(const ef_interpreter* interpreter, size_t index, ef_tensor* out);
const char* ef_kernel_isa_name(const ef_interpreter* interpreter);
size_t ef_arena_used_bytes(const ef_interpreter* interpreter);
/* ef_invoke calls since ef_create, and how many of them split their ops over the threads (with
 * adapt_splits the others ran on the calling thread alone; none without threads). */
size_t ef_invocations(const ef_interpreter* interpreter);
size_t ef_split_invocations(const ef_interpreter* interpreter);

/* ---- On-device training (edgefold/trainer.h) ----
 * The model must be compiled with BatchNorm kept (`edgefold compile --train`) for a fixed
 * batch N, one input and one output of logits [N, classes]. All training buffers live in
 * the arena; the model bytes are never written. These calls live in the training library
 * (CMake target edgefold::training; -ledgefold_training -ledgefold_train_kernels). */

typedef enum ef_trainable {
  EF_TRAIN_BATCHNORM = 0,      /* gamma and beta of every BatchNorm */
  EF_TRAIN_BATCHNORM_AND_HEAD, /* + the last Gemm/Conv before the loss */
  EF_TRAIN_ALL,                /* + every Conv/Gemm weight and bias */
  EF_TRAIN_MODEL               /* the set the model records (the default); batchnorm if none */
} ef_trainable;

typedef enum ef_stats_mode {
  EF_STATS_MOMENTUM = 0,      /* new = (1-m)*old + m*batch (PyTorch) */
  EF_STATS_CUMULATIVE_AVERAGE /* mean of batch statistics since the last reset */
} ef_stats_mode;

typedef struct ef_train_options {
  float learning_rate;
  float momentum; /* SGD momentum */
  float weight_decay;
  float bn_momentum; /* running-statistics momentum (EF_STATS_MOMENTUM) */
  ef_stats_mode stats_mode;
  ef_trainable trainable;
  uint32_t seed; /* initializes the classes a --new-classes model adds */
} ef_train_options;

/* Label-free streaming adaptation (Trainer::StreamStep, edgefold/trainer.h): BatchNorm
 * statistics updated per sample with a decaying momentum, the model's statistics as a prior,
 * reset to them when the prediction entropy rises over a window. */
typedef struct ef_stream_options {
  float momentum;       /* first sample's weight after a (re)start */
  float momentum_decay; /* per sample */
  float momentum_min;
  float prior;          /* weight of the model's statistics */
  float variance_floor; /* adapted variance >= this x the model's */
  uint32_t window;      /* samples per entropy window */
  float entropy_rise;   /* reset threshold (entropy / log(classes)) */
} ef_stream_options;

typedef struct ef_stream_report {
  float entropy;    /* of the step's predictions, in [0, 1] */
  int reset;        /* this step triggered a reset */
  uint32_t resets;  /* since create */
  uint32_t samples; /* since the last (re)start */
} ef_stream_report;

typedef struct ef_parameter {
  const char* name;
  float* data; /* in the arena */
  size_t elems;
  int trainable; /* 0 for running statistics */
} ef_parameter;

typedef struct ef_trainer ef_trainer; /* opaque; lives inside the arena */

/* lr 0.01, momentum 0.9, no decay, BN momentum 0.1, EF_STATS_MOMENTUM, the model's trainable
 * set, seed 1. */
void ef_train_options_init(ef_train_options* train);
/* DUA-style defaults: momentum 0.1 decaying by 0.94 to 0.005, prior 0.2, floor 0.05,
 * window 32, entropy rise 0.15. */
void ef_stream_options_init(ef_stream_options* stream);
ef_status ef_required_training_arena_bytes(const uint8_t* model, size_t model_bytes,
                                           const ef_train_options* train, const ef_options* options,
                                           size_t* arena_bytes);
ef_status ef_trainer_create(const uint8_t* model, size_t model_bytes, void* arena,
                            size_t arena_bytes, const ef_train_options* train,
                            const ef_options* options, ef_trainer** out);
size_t ef_trainer_batch_size(const ef_trainer* trainer);
size_t ef_trainer_sample_elems(const ef_trainer* trainer);
size_t ef_trainer_num_classes(const ef_trainer* trainer);
/* Forward (batch statistics), softmax cross-entropy against `labels` (N ints in
 * [0, classes)), backward, one SGD step. `loss` and `correct` may be NULL. */
ef_status ef_trainer_step(ef_trainer* trainer, const float* inputs, const int32_t* labels,
                          float* loss, int* correct);
/* Forward with batch statistics: updates running statistics only. */
ef_status ef_trainer_adapt_statistics(ef_trainer* trainer, const float* inputs);
void ef_trainer_reset_statistics(ef_trainer* trainer);
/* One streaming step on the graph's batch of samples (one, for a model compiled with the
 * default --infer-batch 1): statistics adapted, then graph-batch x classes logits written.
 * `report` may be NULL. */
ef_status ef_trainer_stream_step(ef_trainer* trainer, const float* inputs, float* logits,
                                 const ef_stream_options* stream, ef_stream_report* report);
/* Back to the model's statistics. */
void ef_trainer_reset_stream(ef_trainer* trainer);
/* Inference with running statistics; writes N*classes logits. */
ef_status ef_trainer_evaluate(ef_trainer* trainer, const float* inputs, float* logits);
size_t ef_trainer_num_parameters(const ef_trainer* trainer);
ef_status ef_trainer_parameter(const ef_trainer* trainer, size_t index, ef_parameter* out);
/* The model_bytes given to ef_trainer_create: what ef_trainer_export_model writes. */
size_t ef_trainer_model_bytes(const ef_trainer* trainer);
/* Writes the adapted model into `out` (at least ef_trainer_model_bytes()): the model with the
 * trainer's parameters and running statistics, BatchNorm unfolded, the training section kept
 * (ef_create runs it; ef_trainer_create trains it further). */
ef_status ef_trainer_export_model(const ef_trainer* trainer, uint8_t* out, size_t out_bytes);

/* BatchNorm statistics of an int8 model (compile --quantize int8 --adaptable) adapted on the
 * device: edgefold/int8_adapter.h. The adapter owns an interpreter (inference with the current
 * statistics: ef_set_input / ef_invoke on ef_int8_adapter_interpreter). */
typedef struct ef_int8_adapter ef_int8_adapter; /* opaque; lives inside the arena */

ef_status ef_required_int8_adapter_arena_bytes(const uint8_t* model, size_t model_bytes,
                                               const ef_options* options, size_t* arena_bytes);
ef_status ef_int8_adapter_create(const uint8_t* model, size_t model_bytes, void* arena,
                                 size_t arena_bytes, const ef_options* options,
                                 ef_int8_adapter** out);
ef_interpreter* ef_int8_adapter_interpreter(ef_int8_adapter* adapter);
/* One forward on the interpreter's inputs with batch statistics, folded into the running
 * statistics (EF_STATS_CUMULATIVE_AVERAGE, or EF_STATS_MOMENTUM with `momentum` in (0, 1]). */
ef_status ef_int8_adapter_adapt(ef_int8_adapter* adapter, ef_stats_mode mode, float momentum);
/* The deployed statistics and constants again. */
void ef_int8_adapter_reset(ef_int8_adapter* adapter);
size_t ef_int8_adapter_num_layers(const ef_int8_adapter* adapter);
/* Layer `index`'s running statistics (`channels` values each, in the arena) and how many
 * batches they hold (0: the deployed ones). */
ef_status ef_int8_adapter_layer(const ef_int8_adapter* adapter, size_t index, const float** mean,
                                const float** var, size_t* channels, size_t* batches);

/* Fleet update records (edgefold/update_record.h, docs/fleet.md): a trainer's BatchNorm
 * statistics (and gamma, beta) as a compact signed-or-not record, exported after local
 * adaptation and imported from the fleet's aggregate. */
typedef struct ef_update_info {
  uint64_t model_hash; /* ef_model_hash of the deployed .efb */
  uint32_t round;
  uint32_t samples; /* samples the statistics summarize */
  uint32_t origin;  /* device id; 0 for the fleet's aggregate */
  uint16_t layers;  /* set by export */
  uint8_t int8;     /* 1: int8-quantized arrays */
  uint8_t affine;   /* 1: gamma and beta included */
} ef_update_info;
/* Returns nonzero when `signature` signs `message` under the key the verifier holds
 * (libsodium's Ed25519 on hosted builds; a bare-metal library's on a microcontroller). */
typedef int (*ef_verify_fn)(void* user, const uint8_t* message, size_t message_bytes,
                            const uint8_t* signature, size_t signature_bytes);
uint64_t ef_model_hash(const uint8_t* model, size_t model_bytes);
/* Bytes of the trainer's record (without the 64-byte signature). */
size_t ef_trainer_update_bytes(const ef_trainer* trainer, int int8, int affine);
ef_status ef_trainer_export_update(const ef_trainer* trainer, const ef_update_info* info,
                                   uint8_t* out, size_t out_bytes, size_t* written);
/* Checks the record (model hash, layers, channels, size, CRC, values, and the signature when
 * `verify` is not NULL: then one is required) and applies it, refolding; on any refusal the
 * trainer is unchanged and `log` (may be NULL) gets a message naming the field. `info` may be
 * NULL. */
ef_status ef_trainer_import_update(ef_trainer* trainer, const uint8_t* bytes, size_t bytes_n,
                                   uint64_t model_hash, ef_verify_fn verify, void* verify_user,
                                   ef_update_info* info, ef_log_fn log, void* log_user);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EDGEFOLD_EDGEFOLD_H_ */
