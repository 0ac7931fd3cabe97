/* The cache instructions on memory and on an unmapped address: each one
 * run once, its exception (if any) recorded and skipped. QEMU models no
 * cache: most are no-ops, the ones that name a line by address probe it
 * (a load, so an unmapped address raises LoadStorePIFAddrError), and a
 * core without the cache option raises IllegalInstruction. */
#include "rt.h"
#include "sys.h"

unsigned cache_probe(unsigned op, unsigned addr);

static const char *const names[19] = {"dpfr", "dpfw", "dpfro", "dpfwo", "dhwb", "dhwbi", "dhi",
                                      "dii",  "dpfl", "dhu",   "diu",   "diwb", "diwbi", "ipf",
                                      "ipfl", "ihu",  "iiu",   "ihi",   "iii"};

static unsigned line[16];

int main(void) {
  sys_vectors_on();
  unsigned where[2] = {(unsigned)line, 0x10000000u};
  for (int op = 0; op < 19; op++) {
    t_puts(names[op]);
    for (int w = 0; w < 2; w++) {
      unsigned r = cache_probe((unsigned)op, where[w]);
      t_puts(w ? " unmapped:" : " ram:");
      if (r >> 8) {
        t_putu(r >> 8);
        t_puts("x cause ");
        t_putu(r & 0xff);
      } else {
        t_puts("ok");
      }
    }
    t_puts("\n");
  }
  line[0] = 5;
  CHECK(line[0] == 5);
  t_puts("done\n");
  return 19;
}
