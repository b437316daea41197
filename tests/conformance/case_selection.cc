#include "case_selection.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace edgefold::conformance {
namespace {

namespace fs = std::filesystem;

struct Rule {
  bool include = true;
  std::string root;     // "node", "golden", ...
  std::string pattern;  // glob on the directory name
  std::string reason;   // exclude only
  std::string where;    // "file:line" for messages
  int matches = 0;
};

std::string RootDir(const std::string& root, const std::string& onnx_dir,
                    const std::string& golden_dir) {
  return root == "golden" ? golden_dir : onnx_dir + "/" + root;
}

// Case directories (those holding model.onnx) directly under `dir`, sorted.
std::vector<std::string> ListCases(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) {
      names.push_back(e.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool ParseRule(const std::string& line, Rule* rule, std::string* error) {
  std::istringstream in(line);
  std::string verb, target;
  in >> verb >> target;
  if (verb != "include" && verb != "exclude") {
    *error = "expected 'include' or 'exclude', got '" + verb + "'";
    return false;
  }
  const size_t slash = target.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == target.size()) {
    *error = "target must be <root>/<glob>, got '" + target + "'";
    return false;
  }
  rule->include = verb == "include";
  rule->root = target.substr(0, slash);
  rule->pattern = target.substr(slash + 1);
  std::getline(in >> std::ws, rule->reason);
  if (!rule->include && rule->reason.empty()) {
    *error = "exclude '" + target + "' has no reason";
    return false;
  }
  return true;
}

}  // namespace

Selection LoadSelection(const std::string& selection_file, const std::string& onnx_data_dir,
                        const std::string& golden_data_dir) {
  Selection sel;
  std::ifstream in(selection_file);
  if (!in) {
    sel.errors.push_back("cannot open " + selection_file);
    return sel;
  }
  std::vector<Rule> rules;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Rule rule;
    rule.where = "selected_cases.txt:" + std::to_string(n);
    std::string error;
    if (!ParseRule(line, &rule, &error)) {
      sel.errors.push_back(rule.where + ": " + error);
      continue;
    }
    rules.push_back(rule);
  }

  std::map<std::string, std::vector<std::string>> listed;  // root → case names
  for (const Rule& r : rules) {
    if (!listed.count(r.root)) {
      listed[r.root] = ListCases(RootDir(r.root, onnx_data_dir, golden_data_dir));
    }
  }
  for (const auto& [root, names] : listed) {
    for (const std::string& name : names) {
      bool included = false;
      const Rule* excluded_by = nullptr;
      for (Rule& r : rules) {
        if (r.root != root || fnmatch(r.pattern.c_str(), name.c_str(), 0) != 0) continue;
        ++r.matches;
        if (r.include)
          included = true;
        else if (!excluded_by)
          excluded_by = &r;
      }
      const std::string id = root + "/" + name;
      if (included && excluded_by) {
        sel.excluded.push_back({id, excluded_by->reason});
      } else if (included) {
        sel.selected.push_back({id, RootDir(root, onnx_data_dir, golden_data_dir) + "/" + name});
      }
    }
  }
  for (const Rule& r : rules) {
    if (r.matches == 0) {
      sel.errors.push_back(r.where + ": '" + r.root + "/" + r.pattern + "' matches no case");
    }
  }
  return sel;
}

std::string GTestName(const std::string& id) {
  std::string out = id;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) c = '_';
  }
  return out;
}

}  // namespace edgefold::conformance
