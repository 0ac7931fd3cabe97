/* A float-streaming kernel for speed measurements (de233_fpu): fills 4M
 * floats in memory with values of both signs, then runs a relu over them
 * RELU_PASSES times (load, compare, select, store per element), as a relu
 * op does over a tensor. Exits with a checksum byte of the positive count. */
#include "rt.h"

#ifndef RELU_ELEMENTS
#define RELU_ELEMENTS (4 * 1024 * 1024)
#endif
#ifndef RELU_PASSES
#define RELU_PASSES 4
#endif

static float src[RELU_ELEMENTS];
static float dst[RELU_ELEMENTS];

__attribute__((noinline)) static void relu(float *out, const float *in, int n) {
  for (int i = 0; i < n; i++) {
    float x = in[i];
    out[i] = x > 0.0f ? x : 0.0f;
  }
}

int main(void) {
  unsigned h = 0x12345678u;
  for (int i = 0; i < RELU_ELEMENTS; i++) {
    h = h * 1664525u + 1013904223u;
    src[i] = (float)((int)h >> 8) * (1.0f / 1024.0f);
  }
  int passes = OPAQUE(RELU_PASSES);
  for (int p = 0; p < passes; p++) relu(dst, src, RELU_ELEMENTS);
  int positive = 0;
  for (int i = 0; i < RELU_ELEMENTS; i++) {
    CHECK(dst[i] >= 0.0f);
    positive += dst[i] > 0.0f;
  }
  t_show("positive", positive);
  return positive & 0xff;
}
