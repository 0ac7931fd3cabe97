// A ~1.1 KiB frame whose calls keep every register busy. clang-22 stops on
// it with "Cannot scavenge register without an emergency spill slot": the
// backend reserves that slot only for frames above 2 KiB, but offsets above
// 1020 bytes already need a scratch register (sdk/README.md, defect 7).
// q7 build retries with the function's frame padded past 2 KiB.
#include "pattern.h"

// Weak, so the optimiser cannot assume what they return; each mixes its
// arguments so the test sees every one of them arrive.
__attribute__((weak)) int h(int a, int b, int c, int d, int e, int f, int g, int i, int j, int k, int l, int m) {
  return a - 2 * b + 3 * c - 4 * d + 5 * e - 6 * f + 7 * g - 8 * i + 9 * j - 10 * k + 11 * l - 12 * m;
}
__attribute__((weak)) long long h64(long long a, long long b, long long c, long long d, long long e, long long f) {
  return a ^ (b * 3) ^ (c * 5) ^ (d * 7) ^ (e * 11) ^ (f * 13);
}

static NOINLINE int crowded(int a, int b, int c, int d, int e, int g) {
  int big[260];
  long long w[8];
  for (int i = 0; i < 260; i++) big[i] = i * a;
  for (int i = 0; i < 8; i++) w[i] = (long long)big[i] * b + 1;
  int r = h(big[259], big[258], big[257], big[256], big[255], big[254], big[253], big[252], big[251], big[250], a + b,
            c + d);
  long long s = h64(w[0] * w[1], w[2] / w[3], w[4] % w[5], w[6] << (a & 31), w[7] >> (b & 31), w[1] * c);
  return r + (int)s + big[130] + e + g;
}

PATTERN(crowded_frame) {
  for (long i = 0; i < n; i++) {
    int k = (int)(bits_of(in[i]) >> 8);
    out[i] = store_bits((uint32_t)crowded(k, k + 1, k - 2, k * 3, k ^ 5, (int)i));
  }
}
