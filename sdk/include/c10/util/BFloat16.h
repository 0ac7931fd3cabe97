// c10::BFloat16: the top 16 bits of a binary32, converted from float with round
// to nearest, ties to even (NaN becomes 0x7fc0). Arithmetic happens in float.
#ifndef Q7_C10_BFLOAT16_H
#define Q7_C10_BFLOAT16_H

#include <stdint.h>
#include <q7/float16.h>

namespace c10 {

struct alignas(2) BFloat16 {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float value) : x(q7_f32_bits_to_bf16_bits(q7_float_to_bits(value))) {}
  operator float() const { return q7_bits_to_float(q7_bf16_bits_to_f32_bits(x)); }
};

}  // namespace c10

#endif
