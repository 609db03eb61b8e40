// cli/check_command.cpp — `steptp check FILE [--json] [--cuda] [--cost]`: parse,
// well-formedness and the tensor table (declared tensors and inferred intermediate shapes);
// optionally the search's static cost estimate (what the cost policy ranks steps by).
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/program_input.h"
#include "codegen/c_engine.h"
#include "codegen/compiler_driver.h"
#include "leir/tensor_table.h"
#include "leir/wellformed.h"
#include "search/cost_model.h"

namespace steptp::cli {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace

void setup_check_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    std::string file;
    bool json = false;
    bool cuda = false;
    bool cost = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Parse a LEIR program file, check it is well formed, and list its tensors with "
      "their inferred shapes");
  cmd->add_option("file", flags->file, "LEIR program file ('-' for stdin)")->required();
  cmd->add_flag("--json", flags->json, "Machine-readable output");
  cmd->add_flag("--cuda", flags->cuda, "Also check CUDA launch limits of bound (B) loops");
  cmd->add_flag("--cost", flags->cost,
                "Also print the static cost estimate the cost policy ranks steps by (arbitrary "
                "units, 1 thread; lower is faster)");
  cmd->callback([flags, &ctx] {
    auto program = load_program(flags->file);
    if (!program) {
      ctx.exit_code = kExitBadInput;
      return;
    }
    leir::WellFormedOptions options;
    options.cuda_limits = flags->cuda;
    auto wf = leir::check_well_formed(*program, options);
    Result<leir::TensorTable> table =
        wf ? leir::infer_tensor_table(*program) : Result<leir::TensorTable>(wf.error());
    if (flags->json) {
      nlohmann::json j;
      j["file"] = flags->file;
      j["ok"] = table.ok();
      if (!table) {
        j["error"] = {{"category", table.error().category}, {"message", table.error().render()}};
      } else {
        for (const auto& t : table->tensors)
          j["tensors"].push_back({{"name", t.name},
                                  {"role", leir::tensor_role_name(t.role)},
                                  {"dtype", leir::dtype_name(t.dtype)},
                                  {"scope", std::string(1, leir::scope_letter(t.scope))},
                                  {"shape", t.shape}});
        j["blocks"] = program->blocks.size();
        j["static_work"] = codegen::static_work(*program);
        if (flags->cost) j["estimated_cost"] = search::estimated_cost(*program);
      }
      std::cout << j.dump(2) << "\n";
    } else if (!table) {
      std::cerr << flags->file << ": " << table.error().render() << "\n";
    } else {
      std::cout << flags->file << ": ok (" << program->blocks.size() << " top-level blocks, "
                << table->tensors.size() << " tensors)\n";
      for (const auto& t : table->tensors)
        std::cout << "  " << leir::tensor_role_name(t.role) << " " << t.name << " "
                  << leir::dtype_name(t.dtype) << shape_text(t.shape)
                  << (t.role == leir::TensorRole::kIntermediate
                          ? std::string(" scope=") + leir::scope_letter(t.scope)
                          : "")
                  << "\n";
      if (flags->cost)
        std::cout << "  estimated cost: "
                  << search::estimated_cost(*program,
                                            {.wide_vectors = codegen::machine_has_wide_vectors()})
                  << " (search cost model, 1 thread, as `optimize --target cpu` prices it here)\n";
    }
    if (!table) ctx.exit_code = kExitBadInput;
  });
}

}  // namespace steptp::cli
