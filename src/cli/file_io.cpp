#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"

namespace steptp::cli {

bool read_file(const std::string& path, std::string& out) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) {
    std::cerr << "steptp: cannot read " << path << ": it is a directory\n";
    return false;
  }
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    out = ss.str();
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "steptp: cannot read " << path << ": " << std::strerror(errno) << "\n";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

bool write_file_atomic(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << contents) || !out.flush()) {
      std::cerr << "steptp: cannot write " << path << ": " << std::strerror(errno) << "\n";
      std::remove(tmp.c_str());
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::cerr << "steptp: cannot write " << path << ": " << ec.message() << "\n";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

Result<void> ensure_writable_dir(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) return Error::make("bad_out", "cannot create " + path + ": " + ec.message());
  if (!std::filesystem::is_directory(path, ec))
    return Error::make("bad_out", path + " is not a directory");
  const std::string probe = (std::filesystem::path(path) / ".steptp-write-probe").string();
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (f == nullptr)
    return Error::make("bad_out", "cannot write in " + path + ": " + std::strerror(errno));
  std::fclose(f);
  std::remove(probe.c_str());
  return {};
}

}  // namespace steptp::cli
