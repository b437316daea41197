#!/usr/bin/env bash
# Installs everything edgefold needs on a fresh Debian 12 machine (run as root).
# Usage: scripts/install-deps.sh [--python] [--cross] [--fuzz] [--bench]   (--python adds torch/onnx/sklearn for golden-data scripts)
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config ccache
      libxsimd-dev flatbuffers-compiler libflatbuffers-dev
      libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
      libgtest-dev libgmock-dev googletest libbenchmark-dev
      python3 python3-numpy qemu-user
      python3-dev pybind11-dev python3-pytest python3-venv python3-setuptools python3-pip   # python/ package
      graphviz zlib1g-dev libpng-dev   # dot checks `inspect --dot`; zlib writes `--memory-plot x.png`;
                                       # libpng reads it back in the plot tests
      libsodium-dev libmbedtls-dev libpaho-mqtt-dev mosquitto mosquitto-clients openssl)   # fleet/: signatures, MQTT
if [[ "${1:-}" == "--python" ]]; then
  pkgs+=(python3-torch python3-onnx python3-sklearn python3-torchvision)
fi
# --cross: toolchains and emulators for scripts/cross-test.sh (libstdc++ headers only for
# Cortex-M: the 1.5 GB libstdc++-arm-none-eabi-newlib is not needed, see targets/README.md).
for arg in "$@"; do
  if [[ "$arg" == "--cross" ]]; then
    pkgs+=(g++-aarch64-linux-gnu g++-arm-linux-gnueabihf gcc-arm-none-eabi libnewlib-arm-none-eabi
           libstdc++-arm-none-eabi-dev qemu-system-arm)
  fi
  # --fuzz: clang + its runtime libraries (libFuzzer, ASan, UBSan) for scripts/fuzz.sh.
  if [[ "$arg" == "--fuzz" ]]; then
    pkgs+=(clang libclang-rt-14-dev)
  fi
  # --bench: bench/run.sh (PyTorch with OpenBLAS, torchvision models, Node + npm for
  # onnxruntime-node, /usr/bin/time for peak RSS).
  if [[ "$arg" == "--bench" ]]; then
    pkgs+=(python3-torch python3-torchvision python3-onnx libopenblas0-openmp time)
    # A machine with Node from another source (NodeSource's nodejs bundles npm and
    # conflicts with Debian's npm package) keeps it.
    command -v node >/dev/null || pkgs+=(nodejs)
    command -v npm >/dev/null || pkgs+=(npm)
  fi
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
