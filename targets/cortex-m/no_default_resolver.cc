// Linked into firmware that always passes Options::resolver (trimmed to its model's ops).
// The runtime's Create falls back to internal::DefaultOpResolver() — every op — when no
// resolver is given; that one reference would keep all ops in the image. The build links with
// -Wl,--wrap=<DefaultOpResolver> so the reference lands here instead: an empty resolver, so a
// firmware that forgets Options::resolver gets Status::kUnsupportedOp, and --gc-sections
// drops the ops the model does not use.
#include "edgefold/op_resolver.h"

extern "C" const edgefold::OpResolver& __wrap__ZN8edgefold8internal17DefaultOpResolverEv() {
  static const edgefold::OpResolver empty;
  return empty;
}
