// compile --new-classes K: the digits CNN with its class 9 cut from the classifier gets one
// output back; the trainer initializes it (Xavier uniform, or Kaiming before a ReLU, seeded)
// and learns the class on the device from labelled images.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "edgefold/trainer.h"
#include "edgefold_compiler/training.h"
#include "file_io.h"
#include "npy.h"
#include "train_compile.h"

namespace edgefold::tools {
namespace {

const std::string kDigits = EDGEFOLD_DIGITS_DIR;

onnx::TensorProto* Initializer(onnx::ModelProto* m, const std::string& name) {
  for (auto& t : *m->mutable_graph()->mutable_initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

// The digits CNN without class 9: the classifier's last weight row and bias entry dropped.
onnx::ModelProto NineClassDigits() {
  onnx::ModelProto m;
  std::string error;
  EXPECT_TRUE(LoadOnnx(kDigits + "/digits_cnn.onnx", &m, &error)) << error;
  const onnx::NodeProto& head = m.graph().node(m.graph().node_size() - 1);
  for (int input = 1; input <= 2; ++input) {
    onnx::TensorProto* t = Initializer(&m, head.input(input));
    const size_t per_row = t->dims_size() == 2 ? static_cast<size_t>(t->dims(1)) : 1;
    std::string raw = t->raw_data();
    raw.resize(9 * per_row * sizeof(float));
    t->set_raw_data(raw);
    t->set_dims(0, 9);
  }
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(9);
  return m;
}

struct Session {
  std::vector<uint8_t> efb;
  AlignedBuffer model, arena;
  Trainer* trainer = nullptr;
};

std::unique_ptr<Session> Compile(const onnx::ModelProto& m, int new_classes, uint32_t seed) {
  compiler::TrainingOptions training;
  training.batch = 10;
  training.trainable = compiler::TrainableSet::kBatchNormAndHead;
  training.new_classes = new_classes;
  const compiler::TrainingCompileResult r =
      compiler::CompileForTraining(m, compiler::CompileOptions(), training);
  EXPECT_TRUE(r.compiled.ok) << r.compiled.error;
  auto s = std::make_unique<Session>();
  s->efb = r.compiled.model;
  s->model = AllocateAligned(s->efb.size());
  std::memcpy(s->model.data.get(), s->efb.data(), s->efb.size());
  TrainOptions t;
  t.seed = seed;
  t.learning_rate = 0.05f;
  t.momentum = 0.9f;
  s->arena = AllocateAligned(r.training.arena_bytes);
  EXPECT_EQ(Trainer::Create(s->model.data.get(), s->efb.size(), s->arena.data.get(),
                            r.training.arena_bytes, t, Options(), &s->trainer),
            Status::kOk);
  return s;
}

// The head's weight copy [K_in, classes].
ParameterView HeadWeight(Trainer& t) {
  ParameterView w;
  for (size_t i = 0; i < t.num_parameters(); ++i)
    if (t.parameter(i).trainable && t.parameter(i).elems == 32 * t.num_classes())
      w = t.parameter(i);
  return w;
}

std::vector<float> Column(const ParameterView& w, size_t classes, size_t c) {
  std::vector<float> v;
  for (size_t i = 0; i < w.elems / classes; ++i) v.push_back(w.data[i * classes + c]);
  return v;
}

void ExpectUniform(const std::vector<float>& v, double bound, const char* what) {
  double sum2 = 0;
  for (float x : v) {
    EXPECT_LT(std::fabs(x), bound) << what;
    sum2 += double(x) * x;
  }
  const double var = sum2 / v.size(), want = bound * bound / 3;  // U(−b, b): b²/3
  EXPECT_GT(var, 0.5 * want) << what;
  EXPECT_LT(var, 1.6 * want) << what;
  std::printf("%s: bound %.4f, variance %.5f (uniform: %.5f)\n", what, bound, var, want);
}

TEST(NewClasses, TheAddedOutputIsXavierUniformSeededAndTheOthersAreUnchanged) {
  const onnx::ModelProto nine = NineClassDigits();
  auto a = Compile(nine, 1, 1), b = Compile(nine, 1, 1), c = Compile(nine, 1, 2);
  ASSERT_NE(a->trainer, nullptr);
  EXPECT_EQ(a->trainer->num_classes(), 10u);
  const ParameterView w = HeadWeight(*a->trainer);
  ASSERT_NE(w.data, nullptr);
  // Xavier: the classifier feeds the loss, no ReLU: √(6 / (fan_in + fan_out)), 32 in, 10 out.
  ExpectUniform(Column(w, 10, 9), std::sqrt(6.0 / (32 + 10)), "Xavier");
  EXPECT_EQ(Column(w, 10, 9), Column(HeadWeight(*b->trainer), 10, 9)) << "same seed, same weights";
  EXPECT_NE(Column(w, 10, 9), Column(HeadWeight(*c->trainer), 10, 9)) << "another seed";
  const onnx::TensorProto& trained =
      *Initializer(const_cast<onnx::ModelProto*>(&nine), "head.4.weight");
  std::vector<float> original(9 * 32);
  std::memcpy(original.data(), trained.raw_data().data(), original.size() * sizeof(float));
  for (size_t cls = 0; cls < 9; ++cls)
    for (size_t i = 0; i < 32; ++i) ASSERT_EQ(w.data[i * 10 + cls], original[cls * 32 + i]);
}

TEST(NewClasses, AReluAfterTheClassifierGivesKaimingUniform) {
  onnx::ModelProto nine = NineClassDigits();
  auto* g = nine.mutable_graph();
  g->mutable_node(g->node_size() - 1)->set_output(0, "pre_relu");
  onnx::NodeProto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("out_relu");
  relu->add_input("pre_relu");
  relu->add_output(g->output(0).name());
  auto s = Compile(nine, 3, 7);
  ASSERT_NE(s->trainer, nullptr);
  const ParameterView w = HeadWeight(*s->trainer);
  std::vector<float> added;
  for (size_t c = 9; c < 12; ++c) {
    const std::vector<float> col = Column(w, 12, c);
    added.insert(added.end(), col.begin(), col.end());
  }
  ExpectUniform(added, std::sqrt(6.0 / 32), "Kaiming");  // √2 · √(3 / fan_in)
}

// A class the features never saw: photographic negatives (1 − x) of the digits become class
// 10 of the full 10-class CNN. The device learns it from 150 negatives mixed into batches of
// ordinary digits, and is evaluated on held-out images of both kinds.
TEST(NewClasses, TheDeviceLearnsANewClass) {
  onnx::ModelProto ten;
  std::string error;
  ASSERT_TRUE(LoadOnnx(kDigits + "/digits_cnn.onnx", &ten, &error)) << error;
  auto s = Compile(ten, 1, 1);
  ASSERT_NE(s->trainer, nullptr);
  Trainer& t = *s->trainer;
  ASSERT_EQ(t.num_classes(), 11u);
  NpyArray x, y;
  ASSERT_TRUE(ReadNpy(kDigits + "/digits_test_x.npy", &x, &error)) << error;
  ASSERT_TRUE(ReadNpy(kDigits + "/digits_test_y.npy", &y, &error)) << error;
  const size_t per = t.sample_elems(), total = y.i64.size(), split = 300;
  // Interleaved: even positions ordinary digits, odd positions the negative of the same image.
  std::vector<float> images;
  std::vector<int32_t> labels;
  for (size_t i = 0; i < total; ++i) {
    images.insert(images.end(), x.f32.begin() + i * per, x.f32.begin() + (i + 1) * per);
    labels.push_back(static_cast<int32_t>(y.i64[i]));
    for (size_t j = 0; j < per; ++j) images.push_back(1.0f - x.f32[i * per + j]);
    labels.push_back(10);
  }
  auto evaluate = [&](double* new_class_recall) {
    std::vector<float> z(10 * 11);
    size_t correct = 0, seen = 0, news = 0, news_hit = 0;
    for (size_t b = 2 * split; b + 10 <= labels.size(); b += 10) {
      EXPECT_EQ(t.Evaluate(images.data() + b * per, z.data()), Status::kOk);
      for (size_t i = 0; i < 10; ++i) {
        const size_t pred = size_t(std::max_element(&z[i * 11], &z[i * 11] + 11) - &z[i * 11]);
        if (labels[b + i] == 10) {
          ++news;
          news_hit += pred == 10;
        } else {
          correct += pred == size_t(labels[b + i]);
          ++seen;
        }
      }
    }
    *new_class_recall = double(news_hit) / double(news);
    return double(correct) / double(seen);
  };
  double recall_before = 0, recall_after = 0;
  const double before = evaluate(&recall_before);
  for (int epoch = 0; epoch < 4; ++epoch)
    for (size_t b = 0; b + 10 <= 2 * split; b += 10)
      ASSERT_EQ(t.TrainStep(images.data() + b * per, labels.data() + b, nullptr, nullptr),
                Status::kOk);
  const double after = evaluate(&recall_after);
  std::printf("new class (negatives): recall %.2f -> %.2f; digits accuracy %.4f -> %.4f\n",
              recall_before, recall_after, before, after);
  EXPECT_GE(recall_after, 0.9);
  EXPECT_GT(recall_after, recall_before + 0.3);
  EXPECT_GT(after, 0.85);
}

TEST(NewClasses, NeedTheHeadTrained) {
  compiler::TrainingOptions training;
  training.trainable = compiler::TrainableSet::kBatchNorm;
  training.new_classes = 1;
  const compiler::TrainingCompileResult r =
      compiler::CompileForTraining(NineClassDigits(), compiler::CompileOptions(), training);
  EXPECT_FALSE(r.compiled.ok);
  EXPECT_NE(r.compiled.error.find("bn+head"), std::string::npos) << r.compiled.error;
}

}  // namespace
}  // namespace edgefold::tools
