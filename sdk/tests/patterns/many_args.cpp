// Functions with many arguments: 14 mixed int, float, double and 64-bit
// arguments, so the later ones travel on the stack (the windowed ABI passes
// six argument words in registers), including a struct by value.
#include "pattern.h"

struct Pair {
  float a, b;
};

static NOINLINE float many(int a, float b, double c, long long d, int e, float f, int g, double h, Pair p,
                           unsigned i, float j, long long k, short l, float m) {
  return (float)a + b * 2.0f + (float)(c * 3.0) + (float)(d >> 3) + (float)e - f + (float)g + (float)h + p.a -
         p.b + (float)i + j * 0.5f + (float)(k % 1000) + (float)l - m;
}

PATTERN(many_args) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    float y = in[(i + 1) % n];
    int k = (int)(i * 7);
    out[i] = many(k, x, (double)y, (long long)i << 33, -k, y, k + 1, 0.5, Pair{x, -y}, (unsigned)i, x, -(long long)i * 12345,
                  (short)(k & 0x7fff), y);
  }
}
