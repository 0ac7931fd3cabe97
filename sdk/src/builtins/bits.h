/* A float's bits and back, by memcpy (which the compiler turns into a move):
 * the one set of helpers the soft-float, soft-double and math code share. */
#ifndef Q7_SRC_BITS_H
#define Q7_SRC_BITS_H

#include <stdint.h>

static inline uint32_t as_u32(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
static inline float as_f32(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t as_u64(double d) {
  uint64_t u;
  __builtin_memcpy(&u, &d, 8);
  return u;
}
static inline double as_f64(uint64_t u) {
  double d;
  __builtin_memcpy(&d, &u, 8);
  return d;
}

#endif
