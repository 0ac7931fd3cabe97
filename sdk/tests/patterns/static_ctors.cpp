// Static constructors: a global object whose constructor fills a table
// (run from .ctors by the SDK's start-up code) and a function-local static.
#include "pattern.h"

struct Table {
  float v[16];
  Table() {
    float x = 1.0f;
    for (int i = 0; i < 16; i++, x *= -1.5f) v[i] = x;
  }
};

static Table table;

static NOINLINE float counter_base() {
  static float base = table.v[3] * 2.0f;  // initialised once
  return base;
}

PATTERN(static_ctors) {
  for (long i = 0; i < n; i++) out[i] = in[i] * table.v[i & 15] + counter_base();
}
