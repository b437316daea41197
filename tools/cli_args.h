// A small command-line parser shared by the edgefold subcommands.
// Accepts "--flag value", "--flag=value", "-f value" and boolean "--flag"; "--help"/"-h"
// anywhere sets `help`. Everything not starting with '-' is positional.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace edgefold::tools {

// Exit codes of the CLI.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // the command ran and failed (bad model, I/O, mismatch)
constexpr int kExitUsage = 2;    // the command line itself is wrong

struct ArgSpec {
  // Flags taking a value; short aliases map to long names, e.g. {"-o", "--output"}.
  std::set<std::string> value_flags;
  std::set<std::string> bool_flags;
  std::map<std::string, std::string> aliases;
  size_t min_positional = 0;
  size_t max_positional = 0;
};

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // every occurrence, in order
  std::set<std::string> bools;
  bool help = false;

  bool Has(const std::string& flag) const { return bools.count(flag) || values.count(flag); }
  // Last value given for `flag`, or `fallback`.
  std::string Get(const std::string& flag, const std::string& fallback) const;
  std::vector<std::string> All(const std::string& flag) const;
};

// argv[0] is the subcommand name. Returns false with `error` on an unknown flag, a missing
// value or a wrong number of positionals (unless --help was given).
bool ParseArgs(int argc, char** argv, const ArgSpec& spec, ParsedArgs* out, std::string* error);

// ParseArgs plus the CLI's conventions: on --help prints `usage` to stdout and sets
// *exit_code = kExitOk; on an error prints it and `usage` to stderr and sets kExitUsage.
// Returns true only when the command should go on.
bool ParseOrExit(int argc, char** argv, const ArgSpec& spec, const char* usage, ParsedArgs* out,
                 int* exit_code);

// Parses a non-negative integer flag value; false with `error` naming the flag otherwise.
bool ParseCount(const std::string& flag, const std::string& text, int* out, std::string* error);

}  // namespace edgefold::tools
