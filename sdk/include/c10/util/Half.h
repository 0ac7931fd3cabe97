// c10::Half: IEEE binary16 storage with conversions to and from float (round to
// nearest, ties to even). Arithmetic happens in float, as in PyTorch.
#ifndef Q7_C10_HALF_H
#define Q7_C10_HALF_H

#include <stdint.h>
#include <q7/float16.h>

namespace c10 {

struct alignas(2) Half {
  uint16_t x;

  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float value) : x(q7_f32_bits_to_f16_bits(q7_float_to_bits(value))) {}
  operator float() const { return q7_bits_to_float(q7_f16_bits_to_f32_bits(x)); }
};

}  // namespace c10

#endif
