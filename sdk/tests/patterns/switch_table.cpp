// switch statements: a dense switch returning float constants (a lookup
// table once -fno-jump-tables forbids a jump table), a sparse one, and a
// two-way switch that becomes a select of two float constants.
#include "pattern.h"

static NOINLINE float dense(int k) {
  switch (k) {
    case 0: return 0.5f;
    case 1: return -1.25f;
    case 2: return 3.0f;
    case 3: return 1e-3f;
    case 4: return -7.5f;
    case 5: return 100.0f;
    case 6: return -0.0f;
    default: return 42.0f;
  }
}

static NOINLINE int sparse(int k) {
  switch (k) {
    case -100: return 1;
    case 7: return 2;
    case 1000: return 3;
    case 65536: return 4;
    default: return k & 3;
  }
}

static float two_way(int k) {
  switch (k & 1) {
    case 0: return 2.5f;
    default: return -0.75f;
  }
}

PATTERN(switch_table) {
  for (long i = 0; i < n; i++) {
    float x = in[i];
    int k = x == x && x > -1e6f && x < 1e6f ? (int)x : 0;
    out[i] = dense(k & 7) + (float)sparse(k) + two_way(k);
  }
}
