/* startup.h - the console of a firmware image under qemu-system-arm (startup.c). */
#ifndef TT_FW_STARTUP_H
#define TT_FW_STARTUP_H
void fw_print(const char *s);          /* a NUL-terminated string to the emulator's console */
void fw_print_u32(unsigned v);         /* a number, in decimal */
void fw_exit(int status);              /* ends the emulator; status is its exit code */
#endif
