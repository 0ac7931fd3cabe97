// Templates, functors and lambdas: a generic map with a capturing lambda,
// a template recursion, std::sort with a lambda comparator (NaN-free keys)
// and a stateful functor.
#include <algorithm>

#include "pattern.h"

template <typename T, typename F>
static void map_n(const T *in, T *out, long n, F f) {
  for (long i = 0; i < n; i++) out[i] = f(in[i], i);
}

template <int N>
struct Power {
  static float of(float x) { return x * Power<N - 1>::of(x); }
};
template <>
struct Power<0> {
  static float of(float) { return 1.0f; }
};

struct Scaler {
  float k;
  float operator()(float x) const { return x * k; }
};

PATTERN(templates_lambdas) {
  float bias = 0.5f;
  Scaler half{0.5f};
  map_n(in, out, n, [&](float x, long i) { return half(Power<3>::of(x)) + (i & 1 ? bias : -bias); });
  // Sort each block of 8 by |value| with a lambda comparator (keys cleaned of NaN first).
  for (long b = 0; b + 8 <= n; b += 8) {
    float *blk = out + b;
    for (int j = 0; j < 8; j++)
      if (blk[j] != blk[j]) blk[j] = 0.0f;
    std::sort(blk, blk + 8, [](float a, float c) { return (a < 0 ? -a : a) < (c < 0 ? -c : c) || ((a < 0 ? -a : a) == (c < 0 ? -c : c) && a < c); });
  }
}
