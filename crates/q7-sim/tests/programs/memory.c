/* Byte, halfword and word loads and stores (signed and unsigned), struct
 * copies, a byte-wise memcpy/memset with odd alignments, and a bubble sort. */
#include "rt.h"

struct rec {
  char c;
  short s;
  int i;
  unsigned char bytes[7];
};

static unsigned char area[256];
static struct rec recs[8];

__attribute__((noinline)) static void copy(void *dst, const void *src, int n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  while (n--) *d++ = *s++;
}

int main(void) {
  for (int i = 0; i < 256; i++) area[i] = (unsigned char)(i * 37 + 11);
  signed char *sc = (signed char *)area;
  short *ss = (short *)area;
  unsigned short *us = (unsigned short *)area;
  int *si = (int *)area;
  int acc = 0;
  for (int i = 0; i < 64; i++) acc = acc * 3 + sc[i] + ss[i] + us[i] + si[i % 64];
  t_show("loads", acc);
  for (int i = 0; i < 8; i++) {
    recs[i].c = (char)(i - 4);
    recs[i].s = (short)(i * -1000);
    recs[i].i = i * 0x01010101;
    for (int k = 0; k < 7; k++) recs[i].bytes[k] = (unsigned char)(i + k);
  }
  struct rec tmp = recs[3];
  recs[3] = recs[5];
  recs[5] = tmp;
  int r = 0;
  for (int i = 0; i < 8; i++) r = r * 5 + recs[i].c + recs[i].s + recs[i].i + recs[i].bytes[i % 7];
  t_show("structs", r);
  copy(area + 3, area + 100, 61);
  for (int i = 0; i < 17; i++) area[200 + i] = 0xa5;
  unsigned h = 0;
  for (int i = 0; i < 256; i++) h = h * 33 + area[i];
  t_show("bytes", (int)h);
  int v[20];
  for (int i = 0; i < 20; i++) v[i] = (i * 7919) % 101 - 50;
  for (int i = 0; i < 20; i++)
    for (int j = 0; j + 1 < 20 - i; j++)
      if (v[j] > v[j + 1]) {
        int t = v[j];
        v[j] = v[j + 1];
        v[j + 1] = t;
      }
  for (int i = 0; i < 20; i++) {
    t_putd(v[i]);
    t_puts(i == 19 ? "\n" : " ");
  }
  return 9;
}
