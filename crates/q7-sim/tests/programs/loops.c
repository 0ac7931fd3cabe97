/* Counted loops the compiler turns into zero-overhead loops (loop/loopnez/
 * loopgtz), nested loops, loops with early exits and with calls inside. */
#include "rt.h"

static int buf[300];

__attribute__((noinline)) static int callee(int x) { return x ^ 0x55; }

int main(void) {
  int n = OPAQUE(300);
  for (int i = 0; i < n; i++) buf[i] = i * i - 7 * i;
  int s = 0;
  for (int i = 0; i < n; i++) s += buf[i];
  t_show("sum", s);
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < 5; j++) h = (h ^ (unsigned)(buf[i] + j)) * 16777619u;
  }
  t_show("fnv", (int)h);
  int found = -1;
  for (int i = 0; i < n; i++) {
    if (buf[i] > 5000) {
      found = i;
      break;
    }
  }
  t_show("found", found);
  int z = 0;
  for (int i = 0; i < OPAQUE(0); i++) z++;
  t_show("zero_trip", z);
  int c = 0;
  for (int i = 0; i < n; i++) c += callee(i);
  t_show("calls", c);
  unsigned m = 1;
  for (int i = 0; i < OPAQUE(1000); i++) m = m * 1664525u + 1013904223u;
  t_show("lcg", (int)m);
  return 5;
}
