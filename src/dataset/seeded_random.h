// dataset/seeded_random.h — the dataset's only source of randomness: a SplitMix64 generator and
// stable string hashing, so that every draw depends on the seed and the data alone (never on
// the standard library's distributions, thread scheduling or pointer values).
#pragma once

#include <cstdint>
#include <string_view>

namespace steptp::dataset {

inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a: stable across platforms and runs (std::hash is not required to be).
inline uint64_t stable_hash(std::string_view s, uint64_t seed = 0) {
  uint64_t h = 0xcbf29ce484222325ULL ^ mix64(seed);
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix64(state_);
  }
  // Uniform in [0, n); n > 0. The tiny modulo bias is irrelevant here and keeps it portable.
  uint64_t below(uint64_t n) { return next() % n; }
  // Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo + 1)));
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

}  // namespace steptp::dataset
