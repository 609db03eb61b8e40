#include "cli/tvm_setup.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/bundled_data.h"

namespace steptp::cli {

Result<std::shared_ptr<codegen::TvmEngine>> start_tvm_engine() {
  namespace fs = std::filesystem;
  codegen::TvmEngineOptions options;
  options.script = bundled_file("", "python/steptp_tvm.py");
  std::error_code ec;
  if (const char* env = std::getenv("STEPTP_TVM_PYTHON"); env && *env) {
    options.python = env;
  } else if (const std::string venv = bundled_file("", ".venv/bin/python"); fs::exists(venv, ec)) {
    options.python = venv;
  } else {
    options.python = "python3";
  }
  return codegen::TvmEngine::start(std::move(options));
}

bool use_tvm_engine(verify::EngineFn& engine, std::string_view command, CommandContext& ctx) {
  Result<std::shared_ptr<codegen::TvmEngine>> tvm = start_tvm_engine();
  if (!tvm.ok()) {
    std::cerr << "steptp " << command << ": " << tvm.error().render() << "\n";
    ctx.exit_code = kExitBadInput;
    return false;
  }
  engine = [started = *tvm](const leir::Program& p, const std::vector<leir::TensorData>& inputs) {
    return started->run(p, inputs);
  };
  return true;
}

}  // namespace steptp::cli
