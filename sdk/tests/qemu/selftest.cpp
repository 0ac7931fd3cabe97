// A self-test program for the SDK run under QEMU (check.sh, stage 4): the
// shared prints, then start-up guarantees (constructors, .bss zeroing) and a
// call on a heap-allocated stack (q7_call_on_stack) deep enough to spill and
// refill register windows across the switch.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <q7/runtime.h>

extern "C" void run_prints(void);

namespace {

int constructed = 0;
struct Constructed {
  Constructed() { constructed = 1234; }
};
Constructed global_object;

uint32_t zeroed[256];  // .bss: all zero at q7_main

volatile int recursion_result;

int recurse(int depth, int a, int b, int c) {
  if (depth == 0) return a + b + c;
  int local[4] = {depth, a, b, c};  // forces a frame
  int r = recurse(depth - 1, a + 1, b * 2 % 1000, c ^ depth);
  return r + local[0] - local[3] % 7;
}

int expected_recursion = 0;

void on_other_stack() {
  char probe;
  printf("on heap stack: %s\n", (uintptr_t)&probe >= 0x00600000u && (uintptr_t)&probe < 0x00700000u ? "yes" : "no");
  recursion_result = recurse(120, 1, 2, 3);
}

}  // namespace

extern "C" char q7_qemu_heap[];

extern "C" int q7_main(void) {
  run_prints();
  int failures = 0;
  if (constructed != 1234) {
    printf("FAIL: constructor did not run\n");
    failures++;
  }
  for (uint32_t i = 0; i < 256; i++) {
    if (zeroed[i]) {
      printf("FAIL: .bss not zero at %u\n", (unsigned)i);
      failures++;
      break;
    }
  }
  expected_recursion = recurse(120, 1, 2, 3);
  volatile int canary = 0x5a5a;  // must survive the switch
  q7_call_on_stack(on_other_stack, (uintptr_t)q7_qemu_heap + 0x100000);
  if (recursion_result != expected_recursion || canary != 0x5a5a) {
    printf("FAIL: stack switch: %d vs %d, canary %x\n", recursion_result, expected_recursion, canary);
    failures++;
  }
  printf("selftest: %s\n", failures ? "FAILED" : "ok");
  return failures;
}
