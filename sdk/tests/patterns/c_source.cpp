// An op calling C code (c_source_helper.c, listed in q7.toml): C's constant
// select and constructor through the IR step, called from C++.
#include "pattern.h"

extern "C" float c_helper_mix(const float *in, long n, long i);

PATTERN(c_source) {
  for (long i = 0; i < n; i++) out[i] = c_helper_mix(in, n, i);
}
