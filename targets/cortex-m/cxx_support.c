/* The C++ ABI hooks g++ may reference from -fno-exceptions -fno-rtti code, so bare-metal
 * builds link without libstdc++/libsupc++ (-nostdlib++). The runtime never allocates after
 * Create and never deletes through a base pointer; reaching any of these is a bug, so they
 * stop the program (abort -> semihosting exit status != 0). */
#include <stddef.h>
#include <stdlib.h>

void __cxa_pure_virtual(void) { abort(); }
/* operator delete(void*) and operator delete(void*, size_t), referenced by virtual destructors. */
void _ZdlPv(void* p) {
  (void)p;
  abort();
}
void _ZdlPvj(void* p, size_t n) {
  (void)p;
  (void)n;
  abort();
}
