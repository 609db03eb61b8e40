// dataset/pipeline.cpp — parallel generation with checkpoints, then the deterministic merge.
#include "dataset/pipeline.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "dataset/chat_format.h"
#include "dataset/progress.h"
#include "dataset/token_budget.h"

namespace steptp::dataset {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int worker_threads(const BuildOptions& options) {
  return options.jobs > 0 ? options.jobs
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

struct Split {
  std::string name;
  std::vector<size_t> records;  // unique record indices, in record order
  std::vector<FilterVerdict> verdicts;
  std::vector<std::vector<size_t>> multi;
};

// One multi-answer sample after the token budget: the labels written (ascending record
// indices; empty when dropped), its line and token count.
struct FittedMulti {
  std::vector<size_t> labels;
  std::string line;
  int64_t tokens = 0;
  int64_t prompt_tokens = 0;  // of the written sample: system + user
  int64_t removed = 0;        // labels dropped to fit
};

std::string render_multi(const std::vector<StepRecord>& records, const std::vector<size_t>& labels,
                         const TokenCounter& counter, int64_t& tokens, std::string& user) {
  std::vector<const StepRecord*> ls;
  for (size_t i : labels) ls.push_back(&records[i]);
  user = user_prompt(*ls.front(), static_cast<int>(ls.size()));
  const std::string assistant = assistant_multi(ls);
  tokens = counter.count(prompt::system_message(), user, assistant);
  return chat_line(user, assistant);
}

// The sample as drawn when it fits; else the largest prefix (>= 2) of informativeness_order
// that fits, rendered in record order (the prompt then asks for that many answers); else none.
FittedMulti fit_multi(const std::vector<StepRecord>& records, const std::vector<size_t>& sample,
                      const TokenCounter& counter, int64_t max_tokens) {
  FittedMulti f;
  std::string user;
  f.line = render_multi(records, sample, counter, f.tokens, user);
  if (f.tokens <= max_tokens) {
    f.labels = sample;
    f.prompt_tokens = counter.count_prompt(prompt::system_message(), user);
    return f;
  }
  const std::vector<size_t> order = informativeness_order(records, sample);
  for (size_t k = sample.size() - 1; k >= 2; --k) {
    std::vector<size_t> keep(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
    std::sort(keep.begin(), keep.end());
    f.line = render_multi(records, keep, counter, f.tokens, user);
    if (f.tokens <= max_tokens) {
      f.labels = std::move(keep);
      f.prompt_tokens = counter.count_prompt(prompt::system_message(), user);
      f.removed = static_cast<int64_t>(sample.size() - k);
      return f;
    }
  }
  return FittedMulti{};
}

void count_label(const StepRecord& r, int64_t& labels, int64_t& hard) {
  ++labels;
  if (r.difficulty == "hard") ++hard;
}

}  // namespace

DatasetStats count_units(const std::vector<UnitResult>& units) {
  DatasetStats st;
  st.units = static_cast<int64_t>(units.size());
  for (const UnitResult& u : units) {
    if (!u.import_error.empty()) {
      ++st.units_skipped;
      st.skipped_units[u.unit] = u.import_error;
    }
    st.states += u.states;
    st.candidates += u.candidates;
    st.verified += u.verified;
    for (const auto& [why, n] : u.rejected) st.rejected[why] += n;
    for (const StepRecord& r : u.records) {
      StrategyCounts& c = st.per_strategy[r.strategy];
      c.category = r.category;
      c.difficulty = r.difficulty;
      ++c.verified;
    }
  }
  return st;
}

Result<BuildSummary> build_dataset(const BuildOptions& options) {
  auto units = discover_units(options.workloads_dir, options.glob, options.include_default_shapes);
  if (!units) return units.error();
  if (units->empty())
    return Error::make("bad_input", "no catalog workload matches '" + options.glob + "'");
  return build_dataset_from_units(*units, options);
}

Result<TokenCounter> token_counter_for(const BuildOptions& options) {
  if (options.tokenizer_path.empty()) return TokenCounter{};
  return TokenCounter::from_file(options.tokenizer_path);
}

Result<size_t> generate_checkpoints(const std::vector<WorkUnit>& units,
                                    const BuildOptions& options) {
  const fs::path out(options.out_dir);
  std::error_code ec;
  fs::create_directories(out / "checkpoints", ec);
  if (ec) return Error::make("io_error", "cannot create " + (out / "checkpoints").string());
  const json fp = checkpoint_fingerprint(options.generate);

  // 1. Resume: every unit with a valid checkpoint is done.
  std::vector<size_t> todo;
  for (size_t i = 0; i < units.size(); ++i)
    if (!load_checkpoint(checkpoint_path(out, units[i].id), fp)) todo.push_back(i);
  const size_t resumed = units.size() - todo.size();

  // 2. Generate the rest in parallel; each unit's checkpoint is written as soon as it is done.
  ProgressBar bar(units.size(), resumed, options.progress);
  std::atomic<bool> io_failed{false};
  std::string io_message;
  std::mutex io_mutex;
  tbb::task_arena arena(worker_threads(options));
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, todo.size(), 1),
        [&](const tbb::blocked_range<size_t>& range) {
          for (size_t k = range.begin(); k != range.end(); ++k) {
            const WorkUnit& unit = units[todo[k]];
            auto written = write_checkpoint(checkpoint_path(out, unit.id), fp,
                                            generate_unit(unit, options.generate));
            if (!written) {
              std::lock_guard lock(io_mutex);
              io_failed = true;
              io_message = written.error().render();
            }
            bar.advance(unit.id);
          }
        },
        tbb::simple_partitioner());
  });
  bar.finish();
  if (io_failed) return Error::make("io_error", io_message);
  return resumed;
}

Result<std::vector<UnitResult>> load_generated_checkpoints(const std::vector<WorkUnit>& units,
                                                           const BuildOptions& options) {
  const json fp = checkpoint_fingerprint(options.generate);
  std::vector<UnitResult> results;
  for (const WorkUnit& unit : units) {
    auto r = load_checkpoint(checkpoint_path(options.out_dir, unit.id), fp);
    if (!r)
      return Error::make("io_error", "checkpoint of " + unit.id + " vanished during the build");
    results.push_back(std::move(*r));
  }
  return results;
}

Result<BuildSummary> build_dataset_from_units(const std::vector<WorkUnit>& units,
                                              const BuildOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // Loaded before generating, so a bad path fails in seconds rather than after the whole build.
  auto counter = token_counter_for(options);
  if (!counter) return counter.error();
  if (options.max_tokens < 1) return Error::make("bad_input", "max_tokens must be positive");
  auto resumed = generate_checkpoints(units, options);
  if (!resumed) return resumed.error();

  // 3. Merge, always from the checkpoint files, in unit order.
  auto results = load_generated_checkpoints(units, options);
  if (!results) return results.error();
  auto summary = merge_unit_results(std::move(*results), *counter, options);
  if (!summary) return summary.error();
  summary->units = units.size();
  summary->resumed_units = *resumed;
  summary->wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

namespace {

// The multi samples of one split that are written, in draw order: draw_multi never repeats a
// label list, but a reduced sample can equal another sample, so the unreduced samples claim their
// lists first, then each reduced one is written only if its list is still free.
// Token lengths of the samples written to one file: whole, prompt (system + user), answer.
struct LengthLists {
  std::vector<int64_t> total, prompt, answer;
  void add(int64_t whole, int64_t prompt_part) {
    total.push_back(whole);
    prompt.push_back(prompt_part);
    answer.push_back(whole - prompt_part);
  }
  // Their summaries as stats of `file` (e.g. "single_train"); `all` gains the totals.
  void summarize_into(DatasetStats& st, const std::string& file, std::vector<int64_t>& all) {
    all.insert(all.end(), total.begin(), total.end());
    st.tokens[file] = summarize_lengths(std::move(total));
    st.prompt_tokens[file] = summarize_lengths(std::move(prompt));
    st.answer_tokens[file] = summarize_lengths(std::move(answer));
  }
};

// The shape class a sample is counted under in the statistics.
std::string shape_class(const StepRecord& r) {
  if (r.instance != "default") return r.instance;
  return r.verification.instance == "reduced" ? "default, verified on the reduced instance"
                                              : "default, verified as shown";
}

std::string keep_multi(const std::vector<FittedMulti>& fitted,
                       const std::vector<StepRecord>& records, const std::string& split_name,
                       DatasetStats& st, std::map<size_t, int64_t>& archive_multi, int64_t& labels,
                       int64_t& hard_labels, LengthLists& lengths) {
  std::string multi_text;
  std::set<std::vector<size_t>> written;
  for (const FittedMulti& f : fitted)
    if (!f.labels.empty() && f.removed == 0) written.insert(f.labels);
  for (const FittedMulti& f : fitted) {
    if (f.labels.empty()) {
      ++st.budget.dropped_over_budget_multi;
      continue;
    }
    if (f.removed > 0) {
      if (!written.insert(f.labels).second) {
        ++st.budget.dropped_duplicate_multi;
        continue;
      }
      ++st.budget.reduced_multi;
      st.budget.labels_removed += f.removed;
    }
    ++st.multi_by_shape_class[shape_class(records[f.labels.front()])];
    for (size_t i : f.labels) {
      ++archive_multi[i];
      ++st.per_strategy[records[i].strategy].multi_labels;
      count_label(records[i], labels, hard_labels);
    }
    multi_text += f.line + "\n";
    lengths.add(f.tokens, f.prompt_tokens);
    (split_name == "train" ? st.multi_train : st.multi_test)++;
  }
  return multi_text;
}

// The archive (every unique record with its split and filter verdicts) and the reports.
Result<void> write_archive_and_reports(const fs::path& out, const std::vector<StepRecord>& records,
                                       const std::vector<size_t>& unique,
                                       std::map<size_t, std::string>& archive_split,
                                       std::map<size_t, std::string>& archive_verdict,
                                       std::map<size_t, int64_t>& archive_multi,
                                       const DatasetStats& st, std::vector<std::string>& files) {
  std::string archive;
  for (size_t i : unique) {
    json j = to_json(records[i]);
    j["split"] = archive_split[i];
    j["single_filter"] = archive_verdict[i];
    j["multi_samples"] = archive_multi[i];
    archive += j.dump() + "\n";
  }
  STEPTP_TRY(write_file_atomic((out / "archive.jsonl").string(), archive));
  STEPTP_TRY(write_file_atomic((out / "stats.json").string(), to_json(st).dump(2) + "\n"));
  STEPTP_TRY(write_file_atomic((out / "stats.md").string(), to_markdown(st)));
  STEPTP_TRY(write_file_atomic((out / "strategies.svg").string(), strategy_chart_svg(st)));
  STEPTP_TRY(write_file_atomic((out / "dataset_info.json").string(),
                               llama_factory_dataset_info().dump(2) + "\n"));
  for (const char* f :
       {"archive.jsonl", "stats.json", "stats.md", "strategies.svg", "dataset_info.json"})
    files.push_back(f);
  return {};
}

}  // namespace

Result<BuildSummary> merge_unit_results(std::vector<UnitResult> results,
                                        const TokenCounter& counter, const BuildOptions& options) {
  if (options.max_tokens < 1) return Error::make("bad_input", "max_tokens must be positive");
  const fs::path out(options.out_dir);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return Error::make("io_error", "cannot create " + out.string());
  BuildSummary summary;
  summary.units = results.size();
  DatasetStats st = count_units(results);
  std::vector<StepRecord> records;
  std::vector<std::string> workloads;
  for (UnitResult& u : results) {
    workloads.push_back(u.workload);
    for (StepRecord& r : u.records) records.push_back(std::move(r));
  }
  results.clear();
  const std::vector<size_t> unique = deduplicate(records);
  st.unique = static_cast<int64_t>(unique.size());
  st.duplicates = static_cast<int64_t>(records.size() - unique.size());
  for (size_t i : unique) ++st.per_strategy[records[i].strategy].unique;

  const std::set<std::string> held_out =
      held_out_workloads(workloads, options.filter.test_fraction, options.filter.seed);
  st.test_workloads.assign(held_out.begin(), held_out.end());
  st.train_workloads = static_cast<int64_t>(
      std::set<std::string>(workloads.begin(), workloads.end()).size() - held_out.size());
  Split splits[2] = {{"train", {}, {}, {}}, {"test", {}, {}, {}}};
  for (size_t i : unique) splits[held_out.count(records[i].workload) ? 1 : 0].records.push_back(i);

  // 4. Filter, draw, fit to the token budget and render. Counting runs in parallel into
  // per-sample slots; every decision that depends on order is taken afterwards, in order.
  std::vector<int64_t> single_lengths, multi_lengths;
  int64_t singles = 0, hard_singles = 0, labels = 0, hard_labels = 0;
  std::map<size_t, std::string> archive_split, archive_verdict;
  std::map<size_t, int64_t> archive_multi;
  const std::string system(prompt::system_message());
  st.token_counter = counter.description();
  st.max_tokens = options.max_tokens;
  tbb::task_arena merge_arena(worker_threads(options));
  std::vector<const StepRecord*> written_singles;  // in output order
  for (Split& split : splits) {
    split.verdicts = filter_single(records, split.records, options.filter, split.name);
    split.multi = draw_multi(records, split.records, options.filter, split.name);
    std::vector<size_t> kept;  // positions in split.records
    for (size_t k = 0; k < split.records.size(); ++k)
      if (split.verdicts[k] == FilterVerdict::kKept) kept.push_back(k);
    std::vector<std::string> single_lines(kept.size());
    std::vector<int64_t> single_counts(kept.size()), single_prompts(kept.size());
    std::vector<FittedMulti> fitted(split.multi.size());
    merge_arena.execute([&] {
      tbb::parallel_for(size_t{0}, kept.size(), [&](size_t j) {
        const StepRecord& r = records[split.records[kept[j]]];
        const std::string user = user_prompt(r, 1);
        const std::string assistant = assistant_single(r);
        single_counts[j] = counter.count(system, user, assistant);
        single_prompts[j] = counter.count_prompt(system, user);
        single_lines[j] = chat_line(user, assistant);
      });
      tbb::parallel_for(size_t{0}, split.multi.size(), [&](size_t j) {
        fitted[j] = fit_multi(records, split.multi[j], counter, options.max_tokens);
      });
    });

    std::string single_text;
    LengthLists single_lists, multi_lists;
    size_t next_kept = 0;
    for (size_t k = 0; k < split.records.size(); ++k) {
      const size_t i = split.records[k];
      const StepRecord& r = records[i];
      archive_split[i] = split.name;
      archive_verdict[i] = std::string(filter_verdict_name(split.verdicts[k]));
      if (split.verdicts[k] == FilterVerdict::kKept) {
        const size_t j = next_kept++;
        if (single_counts[j] > options.max_tokens) {
          archive_verdict[i] = "dropped_over_budget";
          ++st.budget.dropped_over_budget_single;
        } else {
          single_text += single_lines[j] + "\n";
          single_lists.add(single_counts[j], single_prompts[j]);
          ++st.per_strategy[r.strategy].single_kept;
          ++st.single_by_category[r.category];
          ++st.single_by_difficulty[r.difficulty];
          ++st.single_by_depth[r.depth];
          ++st.single_by_shape_class[shape_class(r)];
          written_singles.push_back(&r);
          count_label(r, singles, hard_singles);
          count_label(r, labels, hard_labels);
          (split.name == "train" ? st.single_train : st.single_test)++;
        }
      }
      ++st.filter_verdicts[archive_verdict[i]];
    }

    std::string multi_text = keep_multi(fitted, records, split.name, st, archive_multi, labels,
                                        hard_labels, multi_lists);
    single_lists.summarize_into(st, "single_" + split.name, single_lengths);
    multi_lists.summarize_into(st, "multi_" + split.name, multi_lengths);
    for (const auto& [name, text] : {std::pair{"single_" + split.name + ".jsonl", &single_text},
                                     std::pair{"multi_" + split.name + ".jsonl", &multi_text}}) {
      STEPTP_TRY(write_file_atomic((out / name).string(), *text));
      summary.files.push_back(name);
    }
  }
  FullShapeCheckOptions full = options.full_shape_check;
  full.seed = options.filter.seed;
  full.jobs = worker_threads(options);
  full.progress = options.progress;
  st.full_shape = check_at_full_shape(written_singles, full);
  st.hard_share_single = singles ? static_cast<double>(hard_singles) / singles : 0;
  st.hard_share_labels = labels ? static_cast<double>(hard_labels) / labels : 0;
  st.single_tokens = summarize_lengths(single_lengths);
  st.multi_tokens = summarize_lengths(multi_lengths);

  STEPTP_TRY(write_archive_and_reports(out, records, unique, archive_split, archive_verdict,
                                       archive_multi, st, summary.files));
  summary.stats = std::move(st);
  return summary;
}

}  // namespace steptp::dataset
