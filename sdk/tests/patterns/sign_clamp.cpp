// Activation-style functions: a three-way sign with a zero case, hard tanh,
// leaky relu, clamp through std::min/max and fminf/fmaxf, and a step
// gradient (1 inside the clamp range, 0 outside).
#include <algorithm>
#include <math.h>

#include "pattern.h"

static float sign3(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
static float hardtanh(float x) { return std::min(1.0f, std::max(-1.0f, x)); }
static float leaky(float x) { return x > 0.0f ? x : 0.01f * x; }
static float clampf(float x) { return fminf(fmaxf(x, -6.0f), 6.0f); }
static float clamp_grad(float x) { return (x >= -6.0f && x <= 6.0f) ? 1.0f : 0.0f; }

PATTERN(sign_clamp) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    switch (i % 5) {
      case 0: out[i] = sign3(x); break;
      case 1: out[i] = hardtanh(x); break;
      case 2: out[i] = leaky(x); break;
      case 3: out[i] = clampf(x); break;
      default: out[i] = clamp_grad(x); break;
    }
  }
}
