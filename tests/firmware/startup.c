/* startup.c - what a bare-metal Cortex-M4F image needs before main, for the MPS2-AN386 board of
   qemu-system-arm (link.ld): the vector table (stack top, reset handler), the FPU switched on
   before any float instruction, .data copied from flash and .bss zeroed; and semihosting, the
   emulator's console: fw_print writes a string, fw_exit ends the emulator with a status. */
#include "startup.h"

extern unsigned _data_load, _data_start, _data_end, _bss_start, _bss_end, _stack_top;
int main(void);

/* A semihosting call: operation op with argument arg, through the debugger breakpoint 0xAB. */
static int fw_semihost(int op, const void *arg) {
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void fw_print(const char *s) { fw_semihost(0x04, s); }          /* SYS_WRITE0 */

void fw_exit(int status) {                                       /* SYS_EXIT_EXTENDED */
    static unsigned block[2];
    block[0] = 0x20026u;                                         /* ADP_Stopped_ApplicationExit */
    block[1] = (unsigned)status;
    fw_semihost(0x20, block);
    for (;;) {}
}

void fw_print_u32(unsigned v) {
    char text[11];
    int i = 10;
    text[i] = '\0';
    do {
        text[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    fw_print(text + i);
}

void reset_handler(void);
void reset_handler(void) {
    unsigned *from = &_data_load, *to = &_data_start;
    *(volatile unsigned *)0xE000ED88u |= 0xFu << 20;             /* CPACR: CP10 and CP11 (the FPU) on */
    __asm__ volatile("dsb\n\tisb");
    while (to < &_data_end) *to++ = *from++;
    for (to = &_bss_start; to < &_bss_end; to++) *to = 0;
    fw_exit(main());
}

__attribute__((section(".vectors"), used)) static void *const fw_vectors[2] = { &_stack_top, (void *)reset_handler };
