// dataset/progress.cpp — the progress bar's drawing.
#include "dataset/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

namespace steptp::dataset {

ProgressBar::ProgressBar(size_t total, size_t already_done, bool enabled, std::string what)
    : total_(total),
      done_(already_done),
      done_at_start_(already_done),
      enabled_(enabled),
      terminal_(isatty(fileno(stderr)) != 0),
      what_(std::move(what)),
      last_tenth_(total ? 10 * already_done / total : 0),
      start_(std::chrono::steady_clock::now()) {}

void ProgressBar::advance(std::string_view label) {
  std::lock_guard lock(mutex_);
  ++done_;
  draw(label);
}

void ProgressBar::draw(std::string_view label) {
  if (!enabled_) return;
  constexpr size_t kWidth = 30;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const size_t fresh = done_ - done_at_start_;
  const double rate = seconds > 0 ? static_cast<double>(fresh) / seconds : 0;
  const double eta = rate > 0 ? static_cast<double>(total_ - done_) / rate : 0;
  const size_t filled = total_ ? kWidth * done_ / total_ : kWidth;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::string name(label.substr(0, 40));
  if (!terminal_) {
    const size_t tenth = total_ ? 10 * done_ / total_ : 10;
    if (tenth == last_tenth_) return;
    last_tenth_ = tenth;
    fmt::print(stderr, "[{}] {}/{} {}  {:.2f} {}/s  ETA {}m{:02}s\n", bar, done_, total_, what_,
               rate, what_, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60);
    return;
  }
  fmt::print(stderr, "\r[{}] {}/{} {}  {:.2f} {}/s  ETA {}m{:02}s  {:<40}", bar, done_, total_,
             what_, rate, what_, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60, name);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  std::lock_guard lock(mutex_);
  if (enabled_ && terminal_) fmt::print(stderr, "\n");
}

}  // namespace steptp::dataset
