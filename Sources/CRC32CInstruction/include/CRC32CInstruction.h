// The processor's CRC-32C instruction (x86-64, SSE 4.2), for HabitStore's CRC32C: eight
// bytes a step instead of eight table reads. HabitStore keeps its table-driven code for
// processors without it, and its tests compare the two.
#ifndef HABITTO_CRC32C_INSTRUCTION_H
#define HABITTO_CRC32C_INSTRUCTION_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this processor has the instruction, else 0 (also on processors this file does
/// not know). Reads what the C runtime learned of the processor at start-up.
int habitto_crc32c_instruction_available(void);

/// The CRC-32C register after `count` bytes at `bytes` (no inversion at either end), with
/// the instruction. Only to be called when `habitto_crc32c_instruction_available()` is 1.
uint32_t habitto_crc32c_instruction_update(uint32_t crc, const uint8_t *bytes, size_t count);

/// The register after `count` zero bytes, for `count` 8192 or 256 (the lengths the
/// instruction's three streams are joined at; `crc` unchanged for any other): for the tests,
/// which check every entry of the tables behind it.
uint32_t habitto_crc32c_shift(uint32_t crc, size_t count);

#endif
