// C API over fleet update records (edgefold/update_record.h) for a trainer.
#include "c_api/c_api_common.h"
#include "edgefold/trainer.h"
#include "edgefold/update_record.h"

namespace {

using edgefold::RecordEncoding;
using edgefold::Status;
using edgefold::Trainer;
using edgefold::c_api::ToC;

Trainer* Cpp(ef_trainer* p) { return reinterpret_cast<Trainer*>(p); }
const Trainer* Cpp(const ef_trainer* p) { return reinterpret_cast<const Trainer*>(p); }

RecordEncoding Encoding(int int8) {
  return int8 ? RecordEncoding::kInt8 : RecordEncoding::kFloat32;
}

struct CVerifier {
  ef_verify_fn fn;
  void* user;
};

bool Verify(void* user, const uint8_t* message, size_t message_bytes, const uint8_t* signature,
            size_t signature_bytes) {
  const CVerifier* v = static_cast<const CVerifier*>(user);
  return v->fn(v->user, message, message_bytes, signature, signature_bytes) != 0;
}

}  // namespace

extern "C" {

uint64_t ef_model_hash(const uint8_t* model, size_t model_bytes) {
  return model == nullptr ? 0 : edgefold::ModelHash(model, model_bytes);
}

size_t ef_trainer_update_bytes(const ef_trainer* trainer, int int8, int affine) {
  return trainer == nullptr
             ? 0
             : edgefold::TrainerUpdateBytes(*Cpp(trainer), Encoding(int8), affine != 0);
}

ef_status ef_trainer_export_update(const ef_trainer* trainer, const ef_update_info* info,
                                   uint8_t* out, size_t out_bytes, size_t* written) {
  if (trainer == nullptr || info == nullptr) return ToC(Status::kInvalidArgument);
  edgefold::UpdateRecordHeader h;
  h.model_hash = info->model_hash;
  h.round = info->round;
  h.samples = info->samples;
  h.origin = info->origin;
  h.encoding = Encoding(info->int8);
  h.affine = info->affine != 0;
  return ToC(edgefold::ExportTrainerUpdate(*Cpp(trainer), h, out, out_bytes, written));
}

ef_status ef_trainer_import_update(ef_trainer* trainer, const uint8_t* bytes, size_t bytes_n,
                                   uint64_t model_hash, ef_verify_fn verify, void* verify_user,
                                   ef_update_info* info, ef_log_fn log, void* log_user) {
  if (trainer == nullptr) return ToC(Status::kInvalidArgument);
  CVerifier cv{verify, verify_user};
  edgefold::RecordVerifier v;
  v.verify = Verify;
  v.user = &cv;
  edgefold::UpdateExpectation e;
  e.model_hash = model_hash;
  e.verifier = verify != nullptr ? &v : nullptr;
  edgefold::UpdateRecordHeader h;
  const Status s =
      edgefold::ImportTrainerUpdate(Cpp(trainer), bytes, bytes_n, e, &h, log, log_user);
  if (s == Status::kOk && info != nullptr) {
    info->model_hash = h.model_hash;
    info->round = h.round;
    info->samples = h.samples;
    info->origin = h.origin;
    info->layers = h.layers;
    info->int8 = h.encoding == RecordEncoding::kInt8;
    info->affine = h.affine;
  }
  return ToC(s);
}

}  // extern "C"
