#include "npy_header.h"

#include <cctype>

namespace edgefold::tools {
namespace {

// Largest dimension we accept; keeps every later product check simple.
constexpr int64_t kMaxDim = int64_t{1} << 40;

class Cursor {
 public:
  explicit Cursor(const std::string& s) : s_(s) {}
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= s_.size();
  }

  // 'text' or "text" without escapes (numpy never writes escapes in these fields).
  bool Quoted(std::string* out) {
    SkipSpace();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    if (end == std::string::npos) return false;
    *out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }
  bool Word(const char* w) {
    SkipSpace();
    const std::string word(w);
    if (s_.compare(pos_, word.size(), word) != 0) return false;
    pos_ += word.size();
    return true;
  }
  // A non-negative decimal integer (numpy may append 'L' on Python 2 files).
  bool Integer(int64_t* out) {
    SkipSpace();
    int64_t v = 0;
    size_t digits = 0;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      v = v * 10 + (s_[pos_++] - '0');
      if (v > kMaxDim) return false;
      ++digits;
    }
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;
    *out = v;
    return digits > 0;
  }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

bool ParseShape(Cursor& c, int max_rank, std::vector<int64_t>* shape, std::string* error) {
  if (!c.Eat('(')) {
    *error = "field 'shape': expected a tuple";
    return false;
  }
  shape->clear();
  while (!c.Eat(')')) {
    int64_t dim = 0;
    if (!c.Integer(&dim)) {
      *error = "field 'shape': expected a non-negative integer below 2^40";
      return false;
    }
    shape->push_back(dim);
    if (static_cast<int>(shape->size()) > max_rank) {
      *error = "field 'shape': rank above " + std::to_string(max_rank);
      return false;
    }
    if (!c.Eat(',') && !c.Peek(')')) {
      *error = "field 'shape': malformed tuple";
      return false;
    }
  }
  return true;
}

bool ParseValue(Cursor& c, const std::string& key, int max_rank, NpyHeader* out,
                std::string* error) {
  if (key == "descr") {
    if (!c.Quoted(&out->descr)) {
      *error = "field 'descr': expected a dtype string (structured dtypes are not supported)";
      return false;
    }
    return true;
  }
  if (key == "fortran_order") {
    if (c.Word("True")) {
      out->fortran_order = true;
      return true;
    }
    if (c.Word("False")) {
      out->fortran_order = false;
      return true;
    }
    *error = "field 'fortran_order': expected True or False";
    return false;
  }
  if (key == "shape") return ParseShape(c, max_rank, &out->shape, error);
  *error = "unknown header key '" + key + "'";
  return false;
}

}  // namespace

bool ParseNpyHeaderDict(const std::string& text, int max_rank, NpyHeader* out, std::string* error) {
  Cursor c(text);
  if (!c.Eat('{')) {
    *error = "header: expected a '{' dictionary";
    return false;
  }
  bool seen_descr = false, seen_order = false, seen_shape = false;
  while (!c.Eat('}')) {
    std::string key;
    if (!c.Quoted(&key)) {
      *error = "header: expected a quoted key";
      return false;
    }
    if (!c.Eat(':')) {
      *error = "header: expected ':' after key '" + key + "'";
      return false;
    }
    bool* seen = key == "descr"           ? &seen_descr
                 : key == "fortran_order" ? &seen_order
                 : key == "shape"         ? &seen_shape
                                          : nullptr;
    if (seen != nullptr && *seen) {
      *error = "header: key '" + key + "' repeated";
      return false;
    }
    if (!ParseValue(c, key, max_rank, out, error)) return false;
    *seen = true;
    if (!c.Eat(',') && !c.Peek('}')) {
      *error = "header: expected ',' or '}'";
      return false;
    }
  }
  if (!c.AtEnd()) {
    *error = "header: text after the closing '}'";
    return false;
  }
  if (!seen_descr) {
    *error = "header: missing field 'descr'";
    return false;
  }
  if (!seen_order) {
    *error = "header: missing field 'fortran_order'";
    return false;
  }
  if (!seen_shape) {
    *error = "header: missing field 'shape'";
    return false;
  }
  return true;
}

}  // namespace edgefold::tools
