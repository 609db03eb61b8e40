// strategy/strategy.cpp — Site text form (print and parse), typed parameter reads, names of the
// classification enums. No strategy logic lives here.
#include "strategy/strategy.h"

#include <cctype>
#include <charconv>
#include <set>

namespace steptp::strategy {

std::string_view category_name(Category c) {
  switch (c) {
    case Category::kGraph:
      return "graph";
    case Category::kOperator:
      return "operator";
    case Category::kMemory:
      return "memory";
    case Category::kMath:
      return "math";
  }
  return "?";
}

std::string_view difficulty_name(Difficulty d) {
  switch (d) {
    case Difficulty::kVeryEasy:
      return "very_easy";
    case Difficulty::kEasy:
      return "easy";
    case Difficulty::kHard:
      return "hard";
  }
  return "?";
}

std::string BlockPath::to_string() const {
  std::string out = std::to_string(top);
  for (size_t i : nested) {
    out += '.';
    out += std::to_string(i);
  }
  return out;
}

namespace {

bool is_key_char(char c) { return std::islower(static_cast<unsigned char>(c)) || c == '_'; }
bool is_value_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Infeasible bad_parameter(const Site& s, std::string_view key, std::string_view what) {
  return infeasible("site.bad_parameter", "step {} needs parameter '{}' {}", s.to_string(), key,
                    what);
}

}  // namespace

Site& Site::set(std::string key, std::vector<std::string> values) {
  for (Param& p : params_) {
    if (p.key == key) {
      p.values = std::move(values);
      return *this;
    }
  }
  params_.push_back(Param{std::move(key), std::move(values)});
  return *this;
}

Site& Site::set(std::string key, std::string value) {
  return set(std::move(key), std::vector<std::string>{std::move(value)});
}

Site& Site::set_int(std::string key, int64_t value) {
  return set(std::move(key), std::to_string(value));
}

Site& Site::set_ints(std::string key, const std::vector<int64_t>& values) {
  std::vector<std::string> text;
  for (int64_t v : values) text.push_back(std::to_string(v));
  return set(std::move(key), std::move(text));
}

Site& Site::set_block(const BlockPath& path) { return set("block", path.to_string()); }

bool Site::has(std::string_view key) const {
  for (const Param& p : params_)
    if (p.key == key) return true;
  return false;
}

const std::vector<std::string>& Site::values(std::string_view key) const {
  static const std::vector<std::string> kNone;
  for (const Param& p : params_)
    if (p.key == key) return p.values;
  return kNone;
}

Outcome<std::string> Site::name(std::string_view key) const {
  const auto& v = values(key);
  if (v.size() != 1) return bad_parameter(*this, key, "with exactly one value");
  return v[0];
}

Outcome<std::vector<std::string>> Site::names(std::string_view key) const {
  const auto& v = values(key);
  if (v.empty()) return bad_parameter(*this, key, "with one or more values");
  return v;
}

Outcome<int64_t> Site::integer(std::string_view key) const {
  const auto& v = values(key);
  std::optional<int64_t> n = v.size() == 1 ? parse_int(v[0]) : std::nullopt;
  if (!n) return bad_parameter(*this, key, "as one integer");
  return *n;
}

Outcome<std::vector<int64_t>> Site::integers(std::string_view key) const {
  const auto& v = values(key);
  if (v.empty()) return bad_parameter(*this, key, "as a list of integers");
  std::vector<int64_t> out;
  for (const std::string& s : v) {
    std::optional<int64_t> n = parse_int(s);
    if (!n) return bad_parameter(*this, key, "as a list of integers");
    out.push_back(*n);
  }
  return out;
}

Outcome<BlockPath> Site::block() const {
  const auto& v = values("block");
  if (v.size() != 1) return bad_parameter(*this, "block", "as a block index such as 2 or 2.1");
  BlockPath path;
  std::string_view text = v[0];
  bool first = true;
  while (true) {
    size_t dot = text.find('.');
    std::optional<int64_t> n = parse_int(text.substr(0, dot));
    if (!n || *n < 0) return bad_parameter(*this, "block", "as a block index such as 2 or 2.1");
    if (first)
      path.top = static_cast<size_t>(*n);
    else
      path.nested.push_back(static_cast<size_t>(*n));
    first = false;
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  return path;
}

std::string Site::to_string() const {
  std::string out = strategy_ + "(";
  for (size_t i = 0; i < params_.size(); ++i) {
    if (i > 0) out += ", ";
    out += params_[i].key + "=";
    for (size_t j = 0; j < params_[i].values.size(); ++j) {
      if (j > 0) out += ",";
      out += params_[i].values[j];
    }
  }
  return out + ")";
}

Result<Site> parse_site(std::string_view text) {
  size_t pos = 0;
  auto fail = [&](const std::string& what) -> Error {
    return Error::make("bad_site", fmt::format("{} at column {} of step '{}'", what, pos + 1,
                                               text.substr(0, 200)));
  };
  auto skip_space = [&] {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  };
  skip_space();
  size_t start = pos;
  while (pos < text.size() && is_key_char(text[pos])) ++pos;
  if (pos == start) return fail("expected a strategy name such as loop_tiling");
  Site site(std::string(text.substr(start, pos - start)));
  skip_space();
  if (pos >= text.size() || text[pos] != '(') return fail("expected '(' after the strategy name");
  ++pos;
  skip_space();
  bool first_param = true;
  while (true) {
    skip_space();
    if (first_param && pos < text.size() && text[pos] == ')') {
      ++pos;
      break;
    }
    first_param = false;
    // A key: [a-z_]+ followed by '='.
    size_t key_start = pos;
    while (pos < text.size() && is_key_char(text[pos])) ++pos;
    std::string key(text.substr(key_start, pos - key_start));
    skip_space();
    if (key.empty() || pos >= text.size() || text[pos] != '=')
      return fail(key.empty() ? "expected a parameter name"
                              : "expected '=' after parameter name '" + key + "'");
    if (site.has(key)) return fail("parameter '" + key + "' given twice");
    ++pos;
    std::vector<std::string> values;
    bool next_key = false;  // a ',' was followed by "key="
    while (true) {
      skip_space();
      size_t v_start = pos;
      while (pos < text.size() && is_value_char(text[pos])) ++pos;
      if (pos == v_start) return fail("expected a value for parameter '" + key + "'");
      values.emplace_back(text.substr(v_start, pos - v_start));
      skip_space();
      if (pos >= text.size() || text[pos] != ',') break;
      ++pos;
      skip_space();
      size_t look = pos;
      while (look < text.size() && is_key_char(text[look])) ++look;
      while (look < text.size() && std::isspace(static_cast<unsigned char>(text[look]))) ++look;
      if (look > pos && look < text.size() && text[look] == '=') {
        next_key = true;
        break;
      }
    }
    site.set(key, std::move(values));
    if (next_key) continue;
    if (pos < text.size() && text[pos] == ')') {
      ++pos;
      break;
    }
    return fail("expected ',' or ')' after the values of '" + key + "'");
  }
  skip_space();
  if (pos != text.size()) return fail("unexpected text after the closing ')'");
  return site;
}

std::vector<Site> feasible_sites(const Strategy& strategy, const leir::Program& p) {
  std::vector<Site> out;
  for (Site& s : strategy.sites(p))
    if (strategy.check(p, s).ok()) out.push_back(std::move(s));
  return out;
}

Infeasible wrong_strategy(const Strategy& strategy, const Site& s) {
  return infeasible("site.wrong_strategy", "step {} is not a {} step", s.to_string(),
                    strategy.name());
}

Check known_parameters(const Strategy& strategy, const leir::Program& p, const Site& s) {
  std::set<std::string> valid;
  for (const Site& site : strategy.sites(p))
    for (const Site::Param& param : site.params()) valid.insert(param.key);
  if (valid.empty()) return feasible();
  for (const Site::Param& param : s.params()) {
    if (valid.count(param.key)) continue;
    std::string list;
    for (const std::string& key : valid) list += (list.empty() ? "" : ", ") + key;
    return infeasible("site.unknown_parameter", "{} has no parameter '{}' (its parameters: {})",
                      strategy.name(), param.key, list);
  }
  return feasible();
}

}  // namespace steptp::strategy
