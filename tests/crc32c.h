/* crc32c.h - CRC-32C written from its definition (reflected polynomial 0x82F63B78, initial
   value and final xor 0xFFFFFFFF; "123456789" gives 0xE3069283), bit by bit: the tests'
   own, independent of the table-driven one in tinytrace.h. Used by the .ttg tests and
   fuzzer to fix up the checksum of the files they patch. */
#ifndef TT_CRC32C_H
#define TT_CRC32C_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t tu_crc32c(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    size_t i;
    int b;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

#endif
