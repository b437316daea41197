// The GRU/LSTM gate kernels of every SIMD table against the reference at sizes around the
// register width (saturating pre-activations included), the reference against the formulas in
// double, and the whole sequence (kernels/rnn/rnn_sequence.*) against a direct double-precision
// GRU/LSTM over ONNX's weight layout: forward and reverse, both GRU reset forms, initial states.
#include <cmath>

#include "kernels/rnn/rnn_sequence.h"
#include "testing/kernel_test_util.h"

namespace edgefold::kernels::testing {
namespace {
double Sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

using RnnGatesTest = KernelTest;

TEST_P(RnnGatesTest, GruGatesMatchTheReference) {
  for (size_t n : AwkwardSizes()) {
    std::vector<float> gx = RandomVector(3 * n, -6, 6, 1), gh = RandomVector(3 * n, -6, 6, 2);
    gx[0] = 95.0f, gh[3 * n - 1] = -95.0f;  // σ and tanh far into saturation
    const std::vector<float> h0 = RandomVector(n, -1, 1, 3);
    for (bool lbr : {false, true}) {
      std::vector<float> want = h0, got = h0;
      ref::GruGates(gx.data(), gh.data(), want.data(), n, lbr);
      sequence().gru_gates(gx.data(), gh.data(), got.data(), n, lbr);
      ASSERT_TRUE(AllClose(want, got)) << "n=" << n << " lbr=" << lbr;
    }
    std::vector<float> want(n), got(n);
    ref::GruResetHidden(gx.data() + n, gh.data() + n, h0.data(), want.data(), n);
    sequence().gru_reset_hidden(gx.data() + n, gh.data() + n, h0.data(), got.data(), n);
    ASSERT_TRUE(AllClose(want, got)) << "reset n=" << n;
  }
}

TEST_P(RnnGatesTest, LstmGatesMatchTheReference) {
  for (size_t n : AwkwardSizes()) {
    std::vector<float> g = RandomVector(4 * n, -6, 6, 4);
    g[n] = 120.0f, g[4 * n - 1] = -120.0f;
    const std::vector<float> c0 = RandomVector(n, -3, 3, 5);
    std::vector<float> wc = c0, gc = c0, wh(n), gh(n);
    ref::LstmGates(g.data(), wc.data(), wh.data(), n);
    sequence().lstm_gates(g.data(), gc.data(), gh.data(), n);
    ASSERT_TRUE(AllClose(wc, gc)) << "c, n=" << n;
    ASSERT_TRUE(AllClose(wh, gh)) << "h, n=" << n;
  }
}

// The reference against ONNX's formulas, one unit per case.
TEST(RnnGatesReference, FollowsTheOnnxFormulas) {
  const float gx[3] = {0.3f, -0.7f, 1.1f}, gh[3] = {-0.2f, 0.4f, -0.9f};
  for (bool lbr : {false, true}) {
    float h = 0.6f;
    ref::GruGates(gx, gh, &h, 1, lbr);
    const double z = Sig(0.3 - 0.2), r = Sig(-0.7 + 0.4);
    const double n = std::tanh(1.1 + (lbr ? r * -0.9 : -0.9));
    EXPECT_NEAR(h, (1 - z) * n + z * 0.6, 1e-6) << lbr;
  }
  const float g[4] = {0.5f, -1.5f, 2.0f, -0.25f};  // i o f c̃
  float c = 0.8f, h = 0.0f;
  ref::LstmGates(g, &c, &h, 1);
  const double cn = Sig(2.0) * 0.8 + Sig(0.5) * std::tanh(-0.25);
  EXPECT_NEAR(c, cn, 1e-6);
  EXPECT_NEAR(h, Sig(-1.5) * std::tanh(cn), 1e-6);
}

// ONNX GRU/LSTM in double over W [G·H, I], R [G·H, H], B [2·G·H]; returns Y [S, B, H], and the
// final c through *c_out.
std::vector<double> DirectRnn(const RnnShape& s, bool reverse, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& r,
                              const std::vector<float>& b, const std::vector<float>& h0,
                              const std::vector<float>& c0, std::vector<double>* c_out) {
  const size_t H = s.hidden, G = s.gates() * H;
  std::vector<double> y(s.seq * s.batch * H), h(h0.begin(), h0.end()), c(c0.begin(), c0.end());
  for (size_t step = 0; step < s.seq; ++step) {
    const size_t t = reverse ? s.seq - 1 - step : step;
    for (size_t n = 0; n < s.batch; ++n) {
      std::vector<double> gx(G), gh(G), hn(H);
      for (size_t q = 0; q < G; ++q) {
        gx[q] = b[q];
        gh[q] = b[G + q];
        for (size_t i = 0; i < s.input; ++i)
          gx[q] += w[q * s.input + i] * x[(t * s.batch + n) * s.input + i];
        for (size_t k = 0; k < H; ++k) gh[q] += r[q * H + k] * h[n * H + k];
      }
      for (size_t u = 0; u < H; ++u) {
        double* hu = &h[n * H + u];
        if (s.lstm) {
          double* cu = &c[n * H + u];
          *cu = Sig(gx[2 * H + u] + gh[2 * H + u]) * *cu +
                Sig(gx[u] + gh[u]) * std::tanh(gx[3 * H + u] + gh[3 * H + u]);
          hn[u] = Sig(gx[H + u] + gh[H + u]) * std::tanh(*cu);
          continue;
        }
        const double z = Sig(gx[u] + gh[u]), rg = Sig(gx[H + u] + gh[H + u]);
        double hpart = b[G + 2 * H + u];
        if (s.linear_before_reset) {
          hpart = rg * gh[2 * H + u];
        } else {
          for (size_t k = 0; k < H; ++k) {
            const double rk = Sig(gx[H + k] + gh[H + k]);
            hpart += r[(2 * H + u) * H + k] * rk * h[n * H + k];
          }
        }
        const double cand = std::tanh(gx[2 * H + u] + hpart);
        hn[u] = (1 - z) * cand + z * *hu;
      }
      for (size_t u = 0; u < H; ++u) y[(t * s.batch + n) * H + u] = h[n * H + u] = hn[u];
    }
  }
  *c_out = c;
  return y;
}

// W [rows, cols] → Wᵀ as the compiler packs it.
std::vector<float> Transposed(const std::vector<float>& w, size_t rows, size_t cols) {
  std::vector<float> t(w.size());
  for (size_t i = 0; i < rows; ++i)
    for (size_t j = 0; j < cols; ++j) t[j * rows + i] = w[i * cols + j];
  return t;
}

TEST_P(RnnGatesTest, SequenceMatchesADirectRnn) {
  for (int cell = 0; cell < 3; ++cell) {  // GRU, GRU linear_before_reset, LSTM
    for (bool reverse : {false, true}) {
      RnnShape s;
      s.seq = 5;
      s.batch = 2;
      s.input = 3;
      s.hidden = W() + 3;
      s.lstm = cell == 2;
      s.linear_before_reset = cell == 1;
      const size_t G = s.gates() * s.hidden, bh = s.batch * s.hidden;
      const unsigned seed = static_cast<unsigned>(10 * cell + reverse);
      const std::vector<float> x = RandomVector(s.seq * s.batch * s.input, -1, 1, seed);
      const std::vector<float> w = RandomVector(G * s.input, -1, 1, seed + 1),
                               r = RandomVector(G * s.hidden, -0.5f, 0.5f, seed + 2);
      const std::vector<float> b = RandomVector(2 * G, -1, 1, seed + 3),
                               h0 = RandomVector(bh, -1, 1, seed + 4),
                               c0 = RandomVector(bh, -1, 1, seed + 5);
      std::vector<double> c_want;
      const std::vector<double> y_want = DirectRnn(s, reverse, x, w, r, b, h0, c0, &c_want);
      const std::vector<float> wt = Transposed(w, G, s.input), rt = Transposed(r, G, s.hidden);
      std::vector<float> scratch(RnnScratchFloats(s)), y(s.seq * bh), h(bh), c(bh);
      RnnDirectionIo io;
      io.x = x.data();
      io.w_t = wt.data();
      io.r_t = rt.data();
      io.bias = b.data();
      io.h0 = h0.data();
      io.c0 = s.lstm ? c0.data() : nullptr;
      io.reverse = reverse;
      io.y = y.data();
      io.y_step = bh;
      io.h = h.data();
      io.c = s.lstm ? c.data() : nullptr;
      RnnRunDirection(table(), sequence(), s, io, scratch.data());
      for (size_t i = 0; i < y.size(); ++i)
        ASSERT_NEAR(y[i], y_want[i], 2e-5) << "cell " << cell << " rev " << reverse << " i " << i;
      const size_t last = reverse ? 0 : s.seq - 1;
      for (size_t i = 0; i < bh; ++i) ASSERT_EQ(h[i], y[last * bh + i]);
      if (s.lstm) {
        for (size_t i = 0; i < bh; ++i) ASSERT_NEAR(c[i], c_want[i], 2e-5);
      }
    }
  }
}

EDGEFOLD_INSTANTIATE_SIMD(RnnGatesTest);

}  // namespace
}  // namespace edgefold::kernels::testing
