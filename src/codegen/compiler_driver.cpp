#include "codegen/compiler_driver.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace steptp::codegen {
namespace {

namespace fs = std::filesystem;

std::atomic<int64_t> g_compiler_invocations{0};
std::atomic<int64_t> g_temp_counter{0};

uint64_t fnv1a(const std::string& s, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string getenv_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string read_head(const std::string& path, int max_lines) {
  std::ifstream in(path);
  std::string line, out;
  for (int i = 0; i < max_lines && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

// Runs argv with stdout+stderr into `log_path`; returns the exit status (or -1 if it could not
// be started, with `why` set).
int run_process(const std::vector<std::string>& argv, const std::string& log_path,
                std::string& why) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    why = fmt::format("cannot start compiler '{}': {}", argv[0], std::strerror(rc));
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      why = fmt::format("waiting for the compiler failed: {}", std::strerror(errno));
      return -1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  why = "the compiler was killed by a signal";
  return -1;
}

}  // namespace

std::string resolve_compiler(const CompilerOptions& options) {
  if (!options.compiler.empty()) return options.compiler;
  std::string env = getenv_str("STEPTP_CC");
  return env.empty() ? "cc" : env;
}

bool machine_has_wide_vectors() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
}

// The kernels' libraries: libm, and on x86-64 glibc 2.35 or later libmvec, which holds the
// vector variants of erf that the C backend declares (stp_erf, c_emitter.cpp). The kernels are
// compiled on the machine that runs steptp, so steptp's own glibc says whether it is there.
#if defined(__x86_64__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
const std::vector<std::string> kLibraries = {"-lmvec", "-lm"};
#else
const std::vector<std::string> kLibraries = {"-lm"};
#endif

std::vector<std::string> default_compiler_flags() {
  std::vector<std::string> flags = {"-O3",
                                    "-march=native",
                                    "-mno-avx512f",
                                    "-fopenmp",
                                    "-ffp-contract=off",
                                    "-fno-math-errno",
                                    "-fno-trapping-math",
                                    "-shared",
                                    "-fPIC"};
  if (machine_has_wide_vectors()) flags.push_back("-DSTP_WIDE_VECTORS");
  return flags;
}

std::string resolve_cache_dir(const CompilerOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  std::string env = getenv_str("STEPTP_CACHE_DIR");
  if (!env.empty()) return env;
  std::string xdg = getenv_str("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg + "/steptp/kernels";
  std::string home = getenv_str("HOME");
  if (!home.empty()) return home + "/.cache/steptp/kernels";
  return (fs::temp_directory_path() / "steptp-kernels").string();
}

std::string cache_key(const std::string& source, const CompilerOptions& options) {
  std::string material = resolve_compiler(options);
  for (const std::string& f : options.flags) material += '\x1f' + f;
  for (const std::string& f : options.extra_flags) material += '\x1e' + f;
  material += '\x1d';
  material += source;
  return fmt::format("{:016x}{:016x}", fnv1a(material, 14695981039346656037ULL),
                     fnv1a(material, 0x84222325cbf29ce4ULL ^ 0x9e3779b97f4a7c15ULL));
}

int64_t compiler_invocation_count() { return g_compiler_invocations.load(); }

SharedObject::~SharedObject() {
  if (handle_) dlclose(handle_);
}

void* SharedObject::symbol(const char* name) const { return dlsym(handle_, name); }

Result<std::shared_ptr<SharedObject>> SharedObject::open(const std::string& path) {
  // RTLD_NODELETE: the kernel's OpenMP runtime must outlive dlclose, because its idle worker
  // threads keep running runtime code; unloading it under them crashes the process.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!h) {
    const char* e = dlerror();
    return Error::make("load_error", fmt::format("cannot load {}: {}", path, e ? e : "unknown"));
  }
  return std::shared_ptr<SharedObject>(new SharedObject(h, path));
}

Result<BuildResult> build_shared_object(const std::string& source, const CompilerOptions& options) {
  std::string dir = resolve_cache_dir(options);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Error::make("io_error",
                       fmt::format("cannot create cache directory {}: {}", dir, ec.message()));
  BuildResult out;
  out.key = cache_key(source, options);
  std::string so_path = dir + "/" + out.key + ".so";
  if (fs::exists(so_path, ec)) {
    Result<std::shared_ptr<SharedObject>> lib = SharedObject::open(so_path);
    if (lib.ok()) {
      out.library = std::move(lib).value();
      out.cache_hit = true;
      return out;
    }
    // A damaged cache entry is rebuilt below.
  }
  std::string tmp =
      fmt::format("{}/{}.tmp.{}.{}", dir, out.key, ::getpid(), g_temp_counter.fetch_add(1));
  std::string c_path = tmp + ".c", tmp_so = tmp + ".so", log = tmp + ".log";
  {
    std::ofstream f(c_path, std::ios::binary);
    f << source;
    if (!f)
      return Error::make("io_error", fmt::format("cannot write {} in the kernel cache", c_path));
  }
  std::vector<std::string> argv = {resolve_compiler(options)};
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  argv.insert(argv.end(), options.extra_flags.begin(), options.extra_flags.end());
  argv.insert(argv.end(), {"-o", tmp_so, c_path});
  argv.insert(argv.end(), kLibraries.begin(), kLibraries.end());
  g_compiler_invocations.fetch_add(1);
  std::string why;
  int rc = run_process(argv, log, why);
  if (rc != 0) {
    std::string msg =
        rc < 0 ? why
               : fmt::format("{} exited with status {}:\n{}", argv[0], rc, read_head(log, 20));
    fs::remove(c_path, ec);
    fs::remove(tmp_so, ec);
    fs::remove(log, ec);
    return Error::make("compile_error", msg);
  }
  fs::rename(tmp_so, so_path, ec);
  if (ec)
    return Error::make("io_error", fmt::format("cannot publish {}: {}", so_path, ec.message()));
  fs::rename(c_path, dir + "/" + out.key + ".c", ec);
  fs::remove(log, ec);
  Result<std::shared_ptr<SharedObject>> lib = SharedObject::open(so_path);
  if (!lib.ok()) return std::move(lib).error();
  out.library = std::move(lib).value();
  return out;
}

}  // namespace steptp::codegen
