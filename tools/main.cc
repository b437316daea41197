// bin/edgefold: the CLI (cli_main.cc dispatches to one file per subcommand).
#include "cli_main.h"

int main(int argc, char** argv) { return edgefold::cli::Main(argc, argv); }
