# Sourced by the README's two commands: where the build goes, how many jobs, and the
# dependencies (installed when running as root; install-deps.sh installs only what is missing).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-2}"
if [[ "$(id -u)" -eq 0 ]]; then
  bash "$ROOT/scripts/install-deps.sh"
else
  echo "note: not root, skipping scripts/install-deps.sh"
fi
# ccache, when installed (install-deps.sh installs it), lets the README's two commands share
# objects: the example's build and the test build compile the same runtime and compiler with
# the same flags, in build directories at the same depth (CCACHE_BASEDIR makes paths relative).
# EDGEFOLD_CCACHE=0 turns it off.
CMAKE_LAUNCHER_ARGS=()
if [[ "${EDGEFOLD_CCACHE:-1}" == 1 ]] && command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
  CMAKE_LAUNCHER_ARGS=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
