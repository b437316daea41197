/* A CoreMark port for edgefold's bare-metal Cortex-M firmware under QEMU (bench/insn/
 * coremark-cycles.sh): newlib + semihosting printf; time is not measured (QEMU has none), the
 * cycle plugin counts instead, so the reported score and "must run 10 s" line are meaningless.
 * CoreMark itself (EEMBC, Apache-2.0) is not in this repository: the script takes its source. */
#ifndef CORE_PORTME_H
#define CORE_PORTME_H
#include <stddef.h>
#include <stdio.h>

#define HAS_FLOAT 1
#define HAS_TIME_H 0
#define USE_CLOCK 0
#define HAS_STDIO 1
#define HAS_PRINTF 1
#define COMPILER_VERSION "GCC" __VERSION__
#ifndef COMPILER_FLAGS
#define COMPILER_FLAGS "see bench/insn/coremark-cycles.sh"
#endif
#define MEM_LOCATION "STATIC"
#define MEM_METHOD MEM_STATIC
#define SEED_METHOD SEED_VOLATILE
#define MULTITHREAD 1
#define USE_PTHREAD 0
#define USE_FORK 0
#define USE_SOCKET 0
#define MAIN_HAS_NOARGC 1
#define MAIN_HAS_NORETURN 0

typedef signed short ee_s16;
typedef unsigned short ee_u16;
typedef signed int ee_s32;
typedef double ee_f32;
typedef unsigned char ee_u8;
typedef unsigned int ee_u32;
typedef ee_u32 ee_ptr_int;
typedef size_t ee_size_t;
#define align_mem(x) (void*)(4 + (((ee_ptr_int)(x)-1) & ~3))
#define CORETIMETYPE ee_u32
typedef ee_u32 CORE_TICKS;

typedef struct CORE_PORTABLE_S {
  ee_u8 portable_id;
} core_portable;
void portable_init(core_portable* p, int* argc, char* argv[]);
void portable_fini(core_portable* p);
extern ee_u32 default_num_contexts;
#define ee_printf printf
#endif
