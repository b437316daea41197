/* Runs an ONNX model N times with ONNX Runtime's C API (the CPU provider, 1 intra-op thread,
 * all graph optimizations), every input element 0.25: the peer of efb_runner.cc for
 * instruction counts under qemu-aarch64 (bench/insn/run.sh). onnxruntime-node ships the
 * aarch64 library but no C header, so the few entry points used are declared here: OrtApi is
 * a table of function pointers whose order ORT keeps stable across versions; the indices
 * below are their positions in ORT's public C API.
 * Usage: ort_runner MODEL.onnx RUNS INPUT_NAME OUTPUT_NAME DIM...   (the input's shape) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef void* OrtStatusPtr; /* NULL on success */
typedef struct {
  const void* const* (*GetApi)(uint32_t version);
  const char* (*GetVersionString)(void);
} OrtApiBase;
const OrtApiBase* OrtGetApiBase(void);

enum {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSession = 7,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetGraphOptimizationLevel = 23,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kCreateTensorWithData = 49,
  kGetTensorMutableData = 51,
  kCreateCpuMemoryInfo = 69
};

static const void* const* api;

static void Check(OrtStatusPtr status, const char* what) {
  if (status == NULL) return;
  const char* (*message)(OrtStatusPtr) = (const char* (*)(OrtStatusPtr))api[kGetErrorMessage];
  fprintf(stderr, "%s: %s\n", what, message(status));
  exit(1);
}

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s MODEL.onnx RUNS INPUT_NAME OUTPUT_NAME DIM...\n", argv[0]);
    return 2;
  }
  api = OrtGetApiBase()->GetApi(10);
  if (api == NULL) return 1;
  void *env = NULL, *options = NULL, *session = NULL, *memory = NULL, *input = NULL, *output = NULL;
  Check(((OrtStatusPtr(*)(int, const char*, void**))api[kCreateEnv])(3, "insn", &env), "CreateEnv");
  Check(((OrtStatusPtr(*)(void**))api[kCreateSessionOptions])(&options), "CreateSessionOptions");
  Check(((OrtStatusPtr(*)(void*, int))api[kSetGraphOptimizationLevel])(options, 99),
        "optimization level");
  Check(((OrtStatusPtr(*)(void*, int))api[kSetIntraOpNumThreads])(options, 1), "intra-op threads");
  Check(((OrtStatusPtr(*)(void*, int))api[kSetInterOpNumThreads])(options, 1), "inter-op threads");
  Check(((OrtStatusPtr(*)(void*, const char*, void*, void**))api[kCreateSession])(
            env, argv[1], options, &session),
        "CreateSession");
  int64_t shape[8];
  size_t rank = 0, elems = 1;
  for (int i = 5; i < argc && rank < 8; ++i) elems *= (size_t)(shape[rank++] = atoll(argv[i]));
  float* data = malloc(elems * sizeof(float));
  for (size_t i = 0; i < elems; ++i) data[i] = 0.25f;
  Check(((OrtStatusPtr(*)(int, int, void**))api[kCreateCpuMemoryInfo])(1, 0, &memory),
        "CreateCpuMemoryInfo");
  Check(((OrtStatusPtr(*)(void*, void*, size_t, const int64_t*, size_t, int,
                          void**))api[kCreateTensorWithData])(memory, data, elems * sizeof(float),
                                                              shape, rank, 1 /* float */, &input),
        "CreateTensorWithDataAsOrtValue");
  const char* in_name = argv[3];
  const char* out_name = argv[4];
  const int runs = atoi(argv[2]);
  OrtStatusPtr (*run)(void*, void*, const char* const*, const void* const*, size_t,
                      const char* const*, size_t, void**) =
      (OrtStatusPtr(*)(void*, void*, const char* const*, const void* const*, size_t,
                       const char* const*, size_t, void**))api[kRun];
  for (int r = 0; r < runs; ++r) {
    output = NULL;
    Check(run(session, NULL, &in_name, (const void* const*)&input, 1, &out_name, 1, &output),
          "Run");
  }
  float* y = NULL;
  Check(((OrtStatusPtr(*)(void*, void**))api[kGetTensorMutableData])(output, (void**)&y),
        "GetTensorMutableData");
  printf("ort %s: y[0] = %g\n", OrtGetApiBase()->GetVersionString(), (double)y[0]);
  return 0;
}
