// Unaligned memcpy: floats read from and written to byte offsets 1..3 of
// a byte buffer, and a packed struct copied whole. (`char` is unsigned on
// Xtensa, as in GCC and the vendor compiler, and signed on x86-64: the tag
// is `signed char` so both sides mean the same type.)
#include "pattern.h"

struct __attribute__((packed)) Packed {
  signed char tag;
  float value;
  short count;
  double wide;
};

PATTERN(unaligned_memcpy) {
  unsigned char bytes[64];
  for (long i = 0; i < n; i++) {
    int off = 1 + (int)(i % 3);
    memcpy(bytes + off, &in[i], 4);
    memcpy(bytes + off + 7, bytes + off, 4);  // unaligned to unaligned
    float y;
    memcpy(&y, bytes + off + 7, 4);
    Packed p = {(signed char)i, y, (short)i, (double)y * 2.0};
    Packed q;
    memcpy(&q, &p, sizeof q);
    out[i] = (float)(q.value + q.wide) + (float)q.tag + (float)q.count;
  }
}
