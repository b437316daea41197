// Compile errors. The compiler is a host tool: passes throw CompileError with a message that
// names the node and op; CompileModel catches it at the API boundary.
#pragma once
#include <stdexcept>
#include <string>

namespace edgefold::compiler {

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& message) : std::runtime_error(message) {}
};

// "node 'conv1' (op 'Conv'): <what>"
inline std::string NodeMessage(const std::string& node, const std::string& op,
                               const std::string& what) {
  return "node '" + node + "' (op '" + op + "'): " + what;
}

}  // namespace edgefold::compiler
