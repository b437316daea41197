// The edgefold CLI as a library function: bin/edgefold's main() and `python -m edgefold` both
// call it, so the two run one code path.
#pragma once

namespace edgefold::cli {

// argv[0] is the program name, argv[1] the subcommand. Writes to stdout/stderr and returns a
// process exit code (tools/cli_args.h: kExitOk, kExitFailure, kExitUsage).
int Main(int argc, char** argv);

}  // namespace edgefold::cli
