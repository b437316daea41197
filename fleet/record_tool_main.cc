// edgefold-fleet-record: update records on the command line (tests and inspection).
//   edgefold-fleet-record sign SECRET.sk IN OUT   OUT = IN (a record without signature) + its
//                                                 Ed25519 signature
//   edgefold-fleet-record show IN                 the header fields
//   edgefold-fleet-record size MODEL.efb          the record sizes of a model compiled with
//                                                 --train (its BatchNorms, from a Trainer)
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ed25519.h"
#include "edgefold/update_record.h"
#include "file_io.h"

namespace {

bool ReadAll(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

uint32_t U32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
         uint32_t(b[at + 3]) << 24;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  std::vector<uint8_t> in;
  std::string error;
  if (cmd == "sign" && argc == 5) {
    edgefold::fleet::SecretKey sk;
    if (!edgefold::fleet::ReadKeyFile(argv[2], sk.bytes, sizeof sk.bytes, &error) ||
        !ReadAll(argv[3], &in)) {
      std::fprintf(stderr, "edgefold-fleet-record: %s\n", error.empty() ? argv[3] : error.c_str());
      return 1;
    }
    const size_t n = in.size();
    in.resize(n + edgefold::kUpdateSignatureBytes);
    if (!edgefold::fleet::Sign(sk, in.data(), n, in.data() + n)) return 1;
    std::ofstream(argv[4], std::ios::binary)
        .write(reinterpret_cast<const char*>(in.data()), std::streamsize(in.size()));
    return 0;
  }
  if (cmd == "show" && argc == 3 && ReadAll(argv[2], &in) && in.size() >= 32) {
    std::printf(
        "version %u encoding %u flags %u round %u samples %u origin %u layers %u, %zu bytes\n",
        in[4] | in[5] << 8, in[6], in[7], U32(in, 16), U32(in, 20), U32(in, 24),
        in[28] | in[29] << 8, in.size());
    return 0;
  }
  if (cmd == "size" && argc == 3) {
    edgefold::tools::AlignedBuffer model, arena;
    edgefold::TrainOptions t;
    t.trainable = edgefold::Trainable::kBatchNorm;
    size_t bytes = 0;
    edgefold::Trainer* trainer = nullptr;
    if (!edgefold::tools::ReadFileAligned(argv[2], &model, &error) ||
        edgefold::RequiredTrainingArenaBytes(model.data.get(), model.bytes, t, &bytes) !=
            edgefold::Status::kOk ||
        !(arena = edgefold::tools::AllocateAligned(bytes)).data ||
        edgefold::Trainer::Create(model.data.get(), model.bytes, arena.data.get(), bytes, t,
                                  edgefold::Options(), &trainer) != edgefold::Status::kOk) {
      std::fprintf(stderr, "edgefold-fleet-record: %s: not a model compiled with --train %s\n",
                   argv[2], error.c_str());
      return 1;
    }
    size_t channels = 0;
    for (size_t i = 0; i < trainer->num_batchnorms(); ++i)
      channels += trainer->batchnorm(i).channels;
    const auto size = [&](edgefold::RecordEncoding e, bool affine) {
      return edgefold::TrainerUpdateBytes(*trainer, e, affine);
    };
    std::printf(
        "%zu BatchNorms, %zu channels: statistics fp32 %zu B, int8 %zu B; with gamma/beta "
        "fp32 %zu B, int8 %zu B (+%zu signed)\n",
        trainer->num_batchnorms(), channels, size(edgefold::RecordEncoding::kFloat32, false),
        size(edgefold::RecordEncoding::kInt8, false),
        size(edgefold::RecordEncoding::kFloat32, true), size(edgefold::RecordEncoding::kInt8, true),
        edgefold::kUpdateSignatureBytes);
    return 0;
  }
  std::fprintf(stderr,
               "usage: edgefold-fleet-record sign SECRET.sk IN OUT | show IN | size MODEL.efb\n");
  return 2;
}
