#include "CRC32CInstruction.h"
#include <string.h>

#if defined(__x86_64__)

int habitto_crc32c_instruction_available(void) {
    // The processor model is filled in once per process by the compiler runtime's
    // constructor; this only reads it (no CPUID instruction, which traps in a VM).
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t habitto_crc32c_instruction_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8); // unaligned, little-endian as the instruction wants
        c = __builtin_ia32_crc32di(c, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (count > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *bytes);
        bytes += 1;
        count -= 1;
    }
    return c32;
}

#else

int habitto_crc32c_instruction_available(void) { return 0; }

uint32_t habitto_crc32c_instruction_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

#endif
