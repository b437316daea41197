#!/bin/bash
# Every ISA's kernels are compiled in their own translation unit with their own flags
# (runtime/src/kernels/arch/*.cc). An inline function or template that such a unit emits as a
# weak symbol outside its arch namespace is merged by the linker with the other units' copies,
# and the copy kept may be the AVX-512 one on a CPU without AVX-512 (SIGILL; it happened with a
# shared header's inline copy routine). This lists the weak definitions of the arch objects
# outside their namespaces (std:: and xsimd:: templates are named by their arch types or hold
# no ISA-specific code) and fails if there is one.
# Usage: scripts/check-arch-symbols.sh OBJECT...   (ctest passes the kernels libraries' objects)
set -euo pipefail
bad=0
for obj in "$@"; do
  name=$(basename "$obj")
  arch=${name%%.*}                       # avx512.cc.o -> avx512, train_avx2_fma.cc.o -> train_avx2_fma
  arch=${arch#train_}
  case "$arch" in avx512|avx512_vnni|avx2_fma|avx2_vnni|avx2_vnni_evex|sse42|neon|neon_dotprod) ;; *) continue ;; esac
  while read -r sym; do
    echo "check-arch-symbols: $name defines weak '$sym' outside its arch namespace" >&2
    bad=1
  done < <(nm -C --defined-only "$obj" | awk '$2 == "W" || $2 == "V" { $1 = ""; $2 = ""; sub(/^  /, ""); print }' |
           grep -v -E "::(train_)?(avx512|avx512_vnni|avx2_fma|avx2_vnni|avx2_vnni_evex|sse42|neon|neon_dotprod)::|(^| )(std|xsimd|__gnu_cxx)::|^(typeinfo|vtable|guard variable)" || true)
done
[[ $bad -eq 0 ]] && echo "check-arch-symbols: no shared weak definitions in $# objects"
exit $bad
