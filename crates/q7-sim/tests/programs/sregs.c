/* Which special and user registers each access reaches: rsr, wsr and xsr
 * of all 256 special-register numbers and rur/wur of all 256 user-register
 * numbers, each run once with the exception recorded and skipped. Prints
 * the numbers that trapped as 8 hex words per access, and every trap whose
 * cause is not IllegalInstruction. On a core with coprocessors, again with
 * CPENABLE = 0: rur/wur of FCR and FSR then raise Coprocessor0Disabled. */
#include "rt.h"
#include "sys.h"

unsigned sr_probe(unsigned kind, unsigned n, unsigned value, unsigned *out);
void set_cpenable(unsigned);

static const char *const names[5] = {"rsr", "wsr", "xsr", "rur", "wur"};

static unsigned trapped[5][8];

static void scan(const char *tag) {
  for (int kind = 0; kind < 5; kind++)
    for (int w = 0; w < 8; w++) trapped[kind][w] = 0;
  for (unsigned n = 0; n < 256; n++) {
    unsigned value = 0, ignored, result[5];
    result[0] = sr_probe(0, n, 0, &value);
    if (result[0] >> 8) value = 0;
    result[1] = sr_probe(1, n, value, &ignored) - (result[0] & ~0xffu);
    result[2] = sr_probe(2, n, value, &ignored) - (result[0] & ~0xffu);
    value = 0;
    result[3] = sr_probe(3, n, 0, &value);
    if (result[3] >> 8) value = 0;
    result[4] = sr_probe(4, n, value, &ignored) - (result[3] & ~0xffu);
    for (int kind = 0; kind < 5; kind++) {
      if (!(result[kind] >> 8)) continue;
      trapped[kind][n / 32] |= 1u << (n % 32);
      if ((result[kind] & 0xff) != 0) {
        t_puts(tag);
        t_puts(" ");
        t_puts(names[kind]);
        t_puts(" ");
        t_putu(n);
        t_puts(" cause ");
        t_putu(result[kind] & 0xff);
        t_puts("\n");
      }
    }
  }
  for (int kind = 0; kind < 5; kind++) {
    t_puts(tag);
    t_puts(" ");
    t_puts(names[kind]);
    for (int w = 0; w < 8; w++) {
      t_puts(" ");
      t_putx(trapped[kind][w]);
    }
    t_puts("\n");
  }
}

int main(void) {
  sys_vectors_on();
  scan("on");
#ifdef HAVE_CP
  set_cpenable(0);
  scan("off");
  set_cpenable(1);
#endif
  t_puts("done\n");
  return 17;
}
