/* A C source in an op (compiled as C11, through the same IR step): a float
 * constant select, a C constructor (.init_array, as C has no -use-ctors)
 * and a C99 variable-length loop over a restrict-qualified buffer. */
#include <stdint.h>

static float scale = 0.0f;
static volatile float seed = 0.375f; /* volatile: the compiler cannot run the constructor itself */

__attribute__((constructor)) static void init_scale(void) { scale = seed; }

float c_helper_mix(const float *restrict in, long n, long i) {
  float acc = 0.0f;
  for (long k = i; k < n && k < i + 4; k++) acc += in[k] > 0.25f ? 2.0f : -0.5f;
  return acc * scale;
}
