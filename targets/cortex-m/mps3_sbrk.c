/* The heap of firmware on QEMU's mps3-an547 (mps3-an547.ld). rdimon's crt0 takes the heap and
 * stack from semihosting's SYS_HEAPINFO, which on this board names the largest RAM outside the
 * TrustZone memory protection controllers: the 512 KiB ITCM. The stack may live there (its top,
 * 0x80000), but rdimon's _sbrk would refuse any heap above that limit, and .bss ends in DDR: every
 * malloc failed (newlib's stdio buffers too, so stdout fell back to an unbuffered stream on the
 * wrong handle). This _sbrk, linked before librdimon's, grows the heap from the end of .bss up to
 * __heap_end, the end of the linker script's RAM. The runtime itself allocates nothing. */
#include <errno.h>
#include <stddef.h>

extern char end, __heap_end;

void* _sbrk(ptrdiff_t incr) {
  static char* brk = &end;
  if (incr > &__heap_end - brk || incr < &end - brk) {
    errno = ENOMEM;
    return (void*)-1;
  }
  char* prev = brk;
  brk += incr;
  return prev;
}
