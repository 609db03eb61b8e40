// cli/serve_command.cpp — `steptp serve [--port P] [--host H] ...`: verify, apply, sites, lower,
// reward (and parse, check, fmt, strategies) as HTTP JSON endpoints, POST /v1/OPERATION, with
// the OpenAPI document at /openapi.json (service/http_service.h). Loopback unless --host says
// otherwise. Runs until killed; exit 2 when the address cannot be bound.
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "service/http_service.h"

namespace steptp::cli {

void setup_serve_command(CLI::App& app, CommandContext& ctx) {
  struct Flags {
    service::ServiceOptions options;
    bool allow_measure = false;
    bool print_openapi = false;
  };
  auto f = std::make_shared<Flags>();
  service::ServiceOptions& o = f->options;
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve verify, apply, sites, lower and reward as HTTP JSON endpoints (POST /v1/OPERATION; "
      "the OpenAPI document at /openapi.json), on loopback by default");
  cmd->add_option("--host", o.host, "Address to bind (0.0.0.0 exposes the service)")
      ->capture_default_str();
  cmd->add_option("--port", o.port, "Port (0: an ephemeral one, printed on stderr)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--threads", o.threads, "Requests computed at once (0: one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--timeout", o.timeout_s, "Seconds per request before a 504")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  cmd->add_option("--max-request-bytes", o.max_request_bytes, "Largest request body (413 above)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{64}, size_t{1} << 30));
  cmd->add_option("--max-program-bytes", o.limits.max_program_bytes,
                  "Largest LEIR text or answer in a request (413 above)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{16}, size_t{1} << 30));
  cmd->add_option("--work-budget", o.limits.work_budget,
                  "Verification budget: statement executions per interpreter run")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 50));
  cmd->add_option("--memory-budget", o.limits.memory_budget_bytes,
                  "Verification budget: tensor bytes per run")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1} << 10, int64_t{1} << 40));
  cmd->add_option("--max-seeds", o.limits.max_seeds, "Most input seeds a request may ask for")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--allow-measure", f->allow_measure,
                "Let reward requests time compiled C (\"measure\": true) and serve /v1/bench");
  cmd->add_flag("--print-openapi", f->print_openapi, "Print the OpenAPI document and exit");
  cmd->callback([f, &ctx] {
    if (f->print_openapi) {
      std::cout << service::openapi_document();
      return;
    }
    service::ServiceOptions options = f->options;
    options.limits.allow_measure = f->allow_measure;
    options.expose_bench = f->allow_measure;
    service::HttpService server(options);
    if (auto bound = server.bind(); !bound) {
      std::cerr << "steptp serve: " << bound.error().render() << "\n";
      ctx.exit_code = kExitBadInput;
      return;
    }
    std::cerr << fmt::format("steptp serve: listening on http://{}:{}\n", options.host,
                             server.port())
              << std::flush;
    server.run();
  });
}

}  // namespace steptp::cli
