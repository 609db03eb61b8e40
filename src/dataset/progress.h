// dataset/progress.h — a thread-safe progress bar on stderr: done/total, rate, ETA, last unit.
// Purely cosmetic: it never affects what is written to the dataset files. On a terminal it
// redraws one line; into a file or pipe (CI logs) it writes a plain line every 10% instead.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

namespace steptp::dataset {

class ProgressBar {
 public:
  // `what` names the things counted ("units", "samples").
  ProgressBar(size_t total, size_t already_done, bool enabled, std::string what = "units");
  void advance(std::string_view label);  // one more unit done
  void finish();

 private:
  void draw(std::string_view label);
  std::mutex mutex_;
  size_t total_;
  size_t done_;
  size_t done_at_start_;
  bool enabled_;
  bool terminal_;
  std::string what_;
  size_t last_tenth_ = 0;  // the last 10% step written when not on a terminal
  std::chrono::steady_clock::time_point start_;
};

}  // namespace steptp::dataset
