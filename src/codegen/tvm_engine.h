// codegen/tvm_engine.h — runs LEIR programs through Apache TVM: the program is lowered to
// TVMScript (emit_tir, TirTarget::kLlvm), built by TVM for its CPU `llvm` target and run on the
// given inputs, in a long-lived Python worker (python/steptp_tvm.py) that keeps TVM imported and
// each built module cached by its text. TVM is optional: without it, start() says so.
//
// Errors of run(): "compile_error" with a message that starts with the worker's reason —
// "tvm_unsupported:" (emit_tir cannot express the program), "tvm_parse:", "tvm_build:",
// "tvm_run:" — so a verifier counts a program TVM rejects as a compile failure, never as a
// mismatch; "tvm_unavailable" when the worker died or timed out (it is restarted on the next run).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "leir/ir.h"
#include "leir/tensor_data.h"
#include "support/error.h"

namespace steptp::codegen {

struct TvmEngineOptions {
  std::string python;         // an interpreter that imports tvm (e.g. the project's .venv)
  std::string script;         // python/steptp_tvm.py
  int start_timeout_s = 120;  // importing TVM
  int run_timeout_s = 600;    // one build + run
};

class TvmEngine {
 public:
  // Starts the worker and waits for its greeting. Errors: "tvm_unavailable" (no interpreter, no
  // script, TVM does not import, no greeting in time), with the worker's own reason.
  static Result<std::shared_ptr<TvmEngine>> start(TvmEngineOptions options);
  ~TvmEngine();
  TvmEngine(const TvmEngine&) = delete;
  TvmEngine& operator=(const TvmEngine&) = delete;

  // The declared outputs of `p` after running it on `inputs` (the declared non-output tensors,
  // in declaration order, as make_inputs gives them). Thread-safe: requests are serialised.
  Result<std::vector<leir::TensorData>> run(const leir::Program& p,
                                            const std::vector<leir::TensorData>& inputs);

  const std::string& tvm_version() const { return version_; }

 private:
  explicit TvmEngine(TvmEngineOptions options);
  Result<void> spawn();
  void stop();
  // One line from the worker within `timeout_s`; errors when it exits or times out.
  Result<std::string> read_line(int timeout_s);

  TvmEngineOptions options_;
  std::mutex mutex_;
  int pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string buffered_;
  std::string version_;
  std::string scratch_;  // a private folder for modules and tensor files
  int64_t requests_ = 0;
};

}  // namespace steptp::codegen
