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
