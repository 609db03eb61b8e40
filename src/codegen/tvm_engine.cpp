#include "codegen/tvm_engine.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "codegen/tir_emitter.h"

extern char** environ;

namespace steptp::codegen {
namespace {

namespace fs = std::filesystem;

Error unavailable(const std::string& message) {
  return Error::make("tvm_unavailable", "TVM engine: " + message);
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool write_values(const fs::path& file, const std::vector<double>& values) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(double)));
  return static_cast<bool>(out);
}

bool read_values(const fs::path& file, std::vector<double>& values) {
  std::ifstream in(file, std::ios::binary);
  in.read(reinterpret_cast<char*>(values.data()),
          static_cast<std::streamsize>(values.size() * sizeof(double)));
  return in.gcount() == static_cast<std::streamsize>(values.size() * sizeof(double));
}

}  // namespace

TvmEngine::TvmEngine(TvmEngineOptions options) : options_(std::move(options)) {}

TvmEngine::~TvmEngine() {
  stop();
  std::error_code ec;
  if (!scratch_.empty()) fs::remove_all(scratch_, ec);
}

Result<std::shared_ptr<TvmEngine>> TvmEngine::start(TvmEngineOptions options) {
  // A worker that dies mid-request must give an error, not end steptp by SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  std::error_code ec;
  if (!fs::is_regular_file(options.script, ec))
    return unavailable(fmt::format("no worker script at {}", options.script));
  std::shared_ptr<TvmEngine> engine(new TvmEngine(std::move(options)));
  std::string pattern = (fs::temp_directory_path() / "steptp-tvm-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return unavailable(fmt::format("cannot create a scratch folder: {}", std::strerror(errno)));
  engine->scratch_ = pattern;
  STEPTP_TRY(engine->spawn());
  return engine;
}

Result<void> TvmEngine::spawn() {
  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return unavailable("pipe() failed");
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    return unavailable("pipe() failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  // The worker's stderr (TVM's warnings) would interleave with steptp's own output.
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> argv = {options_.python, options_.script, "serve"};
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    return unavailable(fmt::format("cannot start '{}': {}", options_.python, std::strerror(rc)));
  }
  pid_ = pid;
  to_worker_ = in_pipe[1];
  from_worker_ = out_pipe[0];
  buffered_.clear();
  Result<std::string> hello = read_line(options_.start_timeout_s);
  if (!hello) {
    stop();
    return unavailable(fmt::format("'{} {}' did not start: {}", options_.python, options_.script,
                                   hello.error().message));
  }
  nlohmann::json greeting = nlohmann::json::parse(*hello, nullptr, false);
  if (!greeting.is_object() || !greeting.value("ok", false)) {
    stop();
    std::string why = greeting.is_object() ? greeting.value("message", *hello) : *hello;
    return unavailable(why);
  }
  version_ = greeting.value("tvm", "");
  return {};
}

void TvmEngine::stop() {
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (pid_ > 0) {
    // Closing stdin ends the worker's loop; one that hangs is killed.
    int status = 0;
    for (int i = 0; i < 50; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) != 0) {
        pid_ = -1;
        return;
      }
      ::usleep(20000);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  pid_ = -1;
}

Result<std::string> TvmEngine::read_line(int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    const size_t nl = buffered_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return line;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return Error::make("tvm_unavailable", fmt::format("no answer within {} s", timeout_s));
    pollfd p{from_worker_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::make("tvm_unavailable", "the worker exited");
    buffered_.append(chunk, static_cast<size_t>(n));
  }
}

Result<std::vector<leir::TensorData>> TvmEngine::run(const leir::Program& p,
                                                     const std::vector<leir::TensorData>& inputs) {
  Result<std::string> module = emit_tir(p, TirTarget::kLlvm);
  if (!module) return Error::make("compile_error", "tvm_unsupported: " + module.error().message);
  std::lock_guard<std::mutex> lock(mutex_);
  if (pid_ < 0) STEPTP_TRY(spawn());
  const fs::path dir = fs::path(scratch_) / std::to_string(requests_++);
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path module_file = dir / "module.py";
  {
    std::ofstream out(module_file, std::ios::trunc);
    out << *module;
    if (!out) return unavailable("cannot write " + module_file.string());
  }
  nlohmann::json args = nlohmann::json::array();
  std::vector<leir::TensorData> outputs;
  size_t next_input = 0;
  for (const leir::TensorDecl& d : p.decls) {
    const fs::path file = dir / (std::to_string(args.size()) + ".f64");
    const bool is_output = d.role == leir::TensorRole::kOutput;
    if (!is_output) {
      if (next_input >= inputs.size() || inputs[next_input].name != d.name)
        return Error::make("bad_input", fmt::format("TVM engine: no input values for {}", d.name));
      if (!write_values(file, inputs[next_input++].values))
        return unavailable("cannot write " + file.string());
    } else {
      leir::TensorData t{d.name, d.dtype, d.shape, {}};
      t.values.resize(static_cast<size_t>(leir::element_count(d.shape)));
      outputs.push_back(std::move(t));
    }
    args.push_back({{"name", d.name},
                    {"dtype", tvm_dtype(d.dtype)},
                    {"shape", d.shape},
                    {"file", file.string()},
                    {"output", is_output}});
  }
  const std::string request =
      nlohmann::json{{"module", module_file.string()}, {"args", args}}.dump() + "\n";
  Result<std::string> answer = write_all(to_worker_, request)
                                   ? read_line(options_.run_timeout_s)
                                   : Result<std::string>(unavailable("the worker exited"));
  if (!answer) {
    stop();  // restarted on the next run
    fs::remove_all(dir, ec);
    return Error::make("tvm_unavailable", "TVM engine: " + answer.error().message);
  }
  nlohmann::json reply = nlohmann::json::parse(*answer, nullptr, false);
  if (!reply.is_object()) {
    fs::remove_all(dir, ec);
    return unavailable("unreadable answer: " + answer->substr(0, 200));
  }
  if (!reply.value("ok", false)) {
    fs::remove_all(dir, ec);
    return Error::make("compile_error", fmt::format("{}: {}", reply.value("category", "tvm_run"),
                                                    reply.value("message", "")));
  }
  size_t k = 0;
  for (const nlohmann::json& a : args) {
    if (!a["output"].get<bool>()) continue;
    if (!read_values(a["file"].get<std::string>(), outputs[k].values)) {
      fs::remove_all(dir, ec);
      return unavailable("the worker wrote no values for " + outputs[k].name);
    }
    for (double& v : outputs[k].values) v = leir::round_to_dtype(v, outputs[k].dtype);
    ++k;
  }
  fs::remove_all(dir, ec);
  return outputs;
}

}  // namespace steptp::codegen
