/* Cortex-M reset code for newlib's rdimon crt0 (semihosting) on QEMU's mps2 boards.
 * rdimon-crt0 (_mainCRTStartup) already sets SP/heap from SYS_HEAPINFO, zeroes .bss, opens
 * the semihosting handles, builds argv (qemu -append), runs constructors, main and exit.
 * What it does not do, and this file does: the vector table at 0x0, enabling the FPU
 * (CPACR CP10/CP11) before any float instruction, and copying .data from flash to RAM. */
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
extern uint32_t __data_load__, __data_start__, __data_end__, __stack;
extern void _mainCRTStartup(void);

void Reset_Handler(void) {
#if defined(__ARM_FP)
  *(volatile uint32_t*)0xE000ED88u |= (0xFu << 20); /* CPACR: CP10/CP11 full access */
  __asm volatile("dsb\n\tisb");
#endif
  for (uint32_t *s = &__data_load__, *d = &__data_start__; d < &__data_end__;) *d++ = *s++;
  _mainCRTStartup();
  for (;;) {}
}

/* Any fault ends the run: semihosting SYS_EXIT with ADP_Stopped_RunTimeErrorUnknown, which
 * QEMU turns into exit status 1, so a crashing test fails instead of hanging. */
static void Fault_Handler(void) {
  __asm volatile("movs r0, #0x18\n\tldr r1, =0x20023\n\tbkpt 0xab\n\tb .");
}

typedef void (*vector_t)(void);
__attribute__((section(".isr_vector"), used)) const vector_t vector_table[16] = {(vector_t)&__stack,
                                                                                 Reset_Handler,
                                                                                 Fault_Handler,
                                                                                 Fault_Handler,
                                                                                 Fault_Handler,
                                                                                 Fault_Handler,
                                                                                 Fault_Handler,
                                                                                 0,
                                                                                 0,
                                                                                 0,
                                                                                 0,
                                                                                 Fault_Handler,
                                                                                 Fault_Handler,
                                                                                 0,
                                                                                 Fault_Handler,
                                                                                 Fault_Handler};
#ifdef __cplusplus
}
#endif
