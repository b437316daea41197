#include "cli_args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace edgefold::tools {

std::string ParsedArgs::Get(const std::string& flag, const std::string& fallback) const {
  auto it = values.find(flag);
  return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

std::vector<std::string> ParsedArgs::All(const std::string& flag) const {
  auto it = values.find(flag);
  return it == values.end() ? std::vector<std::string>{} : it->second;
}

bool ParseArgs(int argc, char** argv, const ArgSpec& spec, ParsedArgs* out, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      out->help = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      out->positional.push_back(arg);
      continue;
    }
    std::string value;
    bool has_inline_value = false;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_inline_value = true;
    }
    auto alias = spec.aliases.find(arg);
    if (alias != spec.aliases.end()) arg = alias->second;
    if (spec.bool_flags.count(arg) && !has_inline_value) {
      out->bools.insert(arg);
      continue;
    }
    if (!spec.value_flags.count(arg)) {
      *error = "unknown option '" + arg + "'";
      return false;
    }
    if (!has_inline_value) {
      if (i + 1 >= argc) {
        *error = "option '" + arg + "' needs a value";
        return false;
      }
      value = argv[++i];
    }
    out->values[arg].push_back(value);
  }
  if (out->help) return true;
  const size_t n = out->positional.size();
  if (n < spec.min_positional || n > spec.max_positional) {
    *error = n < spec.min_positional ? "missing argument"
                                     : "unexpected argument '" + out->positional.back() + "'";
    return false;
  }
  return true;
}

bool ParseOrExit(int argc, char** argv, const ArgSpec& spec, const char* usage, ParsedArgs* out,
                 int* exit_code) {
  std::string error;
  if (!ParseArgs(argc, argv, spec, out, &error)) {
    std::fprintf(stderr, "edgefold %s: %s\n\n%s", argv[0], error.c_str(), usage);
    *exit_code = kExitUsage;
    return false;
  }
  if (out->help) {
    std::fputs(usage, stdout);
    *exit_code = kExitOk;
    return false;
  }
  return true;
}

bool ParseCount(const std::string& flag, const std::string& text, int* out, std::string* error) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < 0 || v > 100000000) {
    *error = "option '" + flag + "' expects a non-negative integer, got '" + text + "'";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

}  // namespace edgefold::tools
