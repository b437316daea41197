// The edgefold subcommands. Each takes argv with argv[0] = the subcommand name and returns
// a process exit code (kExitOk, kExitFailure, kExitUsage from cli_args.h).
#pragma once

namespace edgefold::tools {

int CompileCommand(int argc, char** argv);
int RunCommand(int argc, char** argv);
int InspectCommand(int argc, char** argv);
int BenchCommand(int argc, char** argv);
int ExportCCommand(int argc, char** argv);
int TrainCommand(int argc, char** argv);
int DiffCommand(int argc, char** argv);
int ValidateCommand(int argc, char** argv);

}  // namespace edgefold::tools
