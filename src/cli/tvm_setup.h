// cli/tvm_setup.h — starts the TVM engine for `--engine tvm`: the worker script is the bundled
// python/steptp_tvm.py (cli/bundled_data.h), run by $STEPTP_TVM_PYTHON, else by the project's
// .venv/bin/python where it exists (scripts/setup-venv.sh tvm installs apache-tvm there), else
// by python3 on PATH.
#pragma once

#include <memory>
#include <string_view>

#include "cli/command.h"
#include "codegen/tvm_engine.h"
#include "support/error.h"
#include "verify/verify.h"

namespace steptp::cli {

Result<std::shared_ptr<codegen::TvmEngine>> start_tvm_engine();

// `--verify-engine tvm` of `command`: starts the engine and sets `engine` to run programs with
// it; when TVM does not start, prints "steptp COMMAND: the reason", sets the bad-input exit code
// and returns false.
bool use_tvm_engine(verify::EngineFn& engine, std::string_view command, CommandContext& ctx);

}  // namespace steptp::cli
