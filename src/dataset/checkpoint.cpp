// dataset/checkpoint.cpp — fingerprint, load and atomic store of per-unit checkpoints.
#include "dataset/checkpoint.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>

#include "dataset/seeded_random.h"
#include "prompt/chat_prompt.h"

namespace steptp::dataset {

namespace fs = std::filesystem;
using nlohmann::json;

// Hashed once per process: a rebuilt steptp whose strategies rewrite differently must not resume
// from the checkpoints of the old one (the settings and the strategy names alone would match).
// "unknown" only compares equal to another unknown build.
const std::string& executable_identity() {
  static const std::string identity = [] {
    std::ifstream in("/proc/self/exe", std::ios::binary);
    if (!in) return std::string("unknown");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    std::ostringstream hex;
    hex << std::hex << stable_hash(bytes.str());
    return hex.str();
  }();
  return identity;
}

json checkpoint_fingerprint(const GenerateOptions& g) {
  return {{"format", "steptp-dataset-checkpoint-1"},
          {"executable", executable_identity()},
          {"seed", g.seed},
          {"max_depth", g.max_depth},
          {"max_sites_per_strategy", g.max_sites_per_strategy},
          {"max_sites_easy", g.max_sites_easy},
          {"unit_work_budget", g.unit_work_budget},
          {"inline_states", g.inline_states},
          {"full_inline_steps", g.full_inline_steps},
          {"inverse_states", g.inverse_states},
          {"chain_width", g.chain_width},
          {"verify_seeds", g.verify_seeds},
          {"instance_work_budget", g.instance_work_budget},
          {"with_lowered", g.with_lowered},
          {"verify_engine", g.tvm ? "interpreter+tvm" : "interpreter"},
          {"strategies", prompt::strategy_menu()}};
}

fs::path checkpoint_path(const fs::path& out, const std::string& unit_id) {
  return out / "checkpoints" / (unit_id + ".json");
}

std::optional<UnitResult> load_checkpoint(const fs::path& path, const json& fingerprint) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  json j = json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.contains("fingerprint") || j["fingerprint"] != fingerprint ||
      !j.contains("result"))
    return std::nullopt;
  try {
    return unit_result_from_json(j["result"]);
  } catch (const json::exception&) {
    return std::nullopt;  // a checkpoint from an incompatible build: regenerate it
  }
}

Result<void> write_checkpoint(const fs::path& path, const json& fingerprint,
                              const UnitResult& result) {
  json j{{"fingerprint", fingerprint}, {"result", to_json(result)}};
  return write_file_atomic(path.string(), j.dump() + "\n");
}

Result<void> write_file_atomic(const std::string& path, const std::string& contents) {
  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error::make("io_error", "cannot write " + tmp);
    out << contents;
    out.flush();
    if (!out) return Error::make("io_error", "cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    return Error::make("io_error", "cannot rename " + tmp + " to " + path + ": " + ec.message());
  return {};
}

}  // namespace steptp::dataset
