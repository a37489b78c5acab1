#include "CRC32CInstruction.h"
#include <string.h>

#if defined(__x86_64__)
#include <sys/platform/x86.h>

int habitto_crc32c_instruction_available(void) {
    // Reads what the dynamic loader learned of the processor when it started this process.
    // Not __builtin_cpu_supports: that links the compiler runtime's __cpu_indicator_init,
    // a constructor that runs a dozen CPUID instructions at every start, whether or not a
    // checksum is ever computed, and each CPUID traps to the hypervisor in a virtual
    // machine (3.5 µs each on the benchmark's machine).
    return CPU_FEATURE_ACTIVE(SSE4_2) ? 1 : 0;
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
