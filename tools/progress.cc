#include "progress.h"

#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace edgefold::tools {
namespace {

bool IsTerminal(std::FILE* out) {
  return out != nullptr && isatty(fileno(out)) && std::getenv("EDGEFOLD_NO_PROGRESS") == nullptr;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

Progress::Progress(std::string label, size_t total, std::FILE* out)
    : label_(std::move(label)),
      total_(total),
      out_(out),
      enabled_(IsTerminal(out)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {}

std::string Progress::Render(const std::string& label, size_t done, size_t total, double seconds,
                             const std::string& suffix, int bar_chars) {
  char buf[64];
  std::string s = label + " ";
  if (total == 0) {
    static const char kSpin[] = "|/-\\";
    std::snprintf(buf, sizeof buf, "%c %.1f s", kSpin[static_cast<size_t>(seconds * 10) % 4],
                  seconds);
    s += buf;
  } else {
    const size_t clamped = done > total ? total : done;
    const int filled = static_cast<int>(bar_chars * clamped / total);
    s += "[" + std::string(filled, '#') + std::string(bar_chars - filled, '.') + "]";
    std::snprintf(buf, sizeof buf, " %3d%% %zu/%zu", static_cast<int>(100 * clamped / total),
                  clamped, total);
    s += buf;
  }
  return suffix.empty() ? s : s + " " + suffix;
}

void Progress::Update(size_t done, const std::string& suffix) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && !(total_ && done >= total_)) return;
  last_draw_ = now;
  const std::string line = Render(label_, done, total_, Seconds(now - start_), suffix);
  // Pad with spaces so a shorter frame fully overwrites a longer one.
  const size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
  std::fprintf(out_, "\r%s%s", line.c_str(), std::string(pad, ' ').c_str());
  std::fflush(out_);
  last_width_ = line.size();
  drawn_ = true;
}

void Progress::Finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\r%s\r", std::string(last_width_, ' ').c_str());
  std::fflush(out_);
  drawn_ = false;
}

void RunWithSpinner(const std::string& label, const std::function<void()>& work, std::FILE* out) {
  if (!IsTerminal(out)) {
    work();
    return;
  }
  Progress progress(label, 0, out);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  const auto start = std::chrono::steady_clock::now();
  std::thread ticker([&] {
    std::unique_lock<std::mutex> lock(mu);
    while (!cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; })) {
      // Work that ends within half a second never draws, so quick runs do not flicker.
      if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(500))
        progress.Update(0);
    }
  });
  work();
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_one();
  ticker.join();
  progress.Finish();
}

}  // namespace edgefold::tools
