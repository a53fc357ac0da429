#!/usr/bin/env bash
# check_image.sh ELF [float-only] - one firmware image of `make firmware`: prints its sizes and
# the double-precision helpers it links; fails when it links malloc or stdio (with float-only:
# any __aeabi_d* routine too); runs it under qemu-system-arm (board mps2-an386, semihosting)
# when that is installed. The last line is "emulator pass", "emulator fail" or
# "emulator not run"; the exit status is 1 for a forbidden symbol or a failed run.
set -u
elf=$1
arm-none-eabi-size "$elf"
echo "double-precision soft-float helpers linked: $(arm-none-eabi-nm "$elf" | grep -c ' __aeabi_d')"
if arm-none-eabi-nm "$elf" | grep -E ' (malloc|_malloc_r|_vfiprintf_r|printf|fopen)$'; then
    echo "$elf links malloc or stdio"
    exit 1
fi
if [ "${2:-}" = float-only ] && arm-none-eabi-nm "$elf" | grep ' __aeabi_d'; then
    echo "$elf links double-precision routines"
    exit 1
fi
if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "emulator not run"
    exit 0
fi
if timeout 120 qemu-system-arm -M mps2-an386 -nographic -semihosting-config enable=on,target=native -kernel "$elf"; then
    echo "emulator pass"
    exit 0
fi
echo "emulator fail"
exit 1
