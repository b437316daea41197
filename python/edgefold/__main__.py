"""`python -m edgefold compile|run|inspect|bench|export-c|train ...`: the edgefold CLI itself
(edgefold::cli::Main, the function bin/edgefold's main() calls), run in this process."""
import sys

from ._edgefold import cli_main


def main(argv=None):
    sys.stdout.flush()
    sys.stderr.flush()
    return cli_main(list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
