// Progress display for long work (large compiles, calibration, training epochs).
//
// Quiet unless the stream is a terminal (and EDGEFOLD_NO_PROGRESS is unset), so logs, pipes
// and CI output never fill with carriage returns. Draws on one line with '\r' and clears it
// when done, so the command's normal output follows on a clean line.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

namespace edgefold::tools {

class Progress {
 public:
  // total = 0 means the amount of work is unknown: a spinner with elapsed time.
  Progress(std::string label, size_t total, std::FILE* out = stderr);
  ~Progress() { Finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws at most every 100 ms (and always at done == total). `suffix`, e.g. "loss 0.31".
  void Update(size_t done, const std::string& suffix = "");
  // Clears the line. Idempotent.
  void Finish();
  bool enabled() const { return enabled_; }
  // Tests: draw even when the stream is not a terminal.
  void ForceEnable() { enabled_ = true; }

  // One frame, without '\r': "label [#####.....]  50% 5/10 suffix" or "label | 3.2 s".
  static std::string Render(const std::string& label, size_t done, size_t total, double seconds,
                            const std::string& suffix, int bar_chars = 30);

 private:
  std::string label_;
  size_t total_;
  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
  size_t last_width_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// Runs `work` while a spinner with elapsed time turns on `out` (only if it is a terminal).
void RunWithSpinner(const std::string& label, const std::function<void()>& work,
                    std::FILE* out = stderr);

}  // namespace edgefold::tools
