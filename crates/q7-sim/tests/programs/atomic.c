/* S32C1I under the ATOMCTL policy: the reset value and writable bits of
 * ATOMCTL, compare-and-store hits and misses under each policy that allows
 * it, and (chosen by `which`, patched by the test) the exceptions: a policy
 * of 0 for the memory's access type raises LoadStoreError (exit 64 + 3); an
 * unaligned address under an allowing policy raises LoadStoreAlignment
 * (64 + 9). Both sample boards map all memory as cache bypass. */
#include "rt.h"

unsigned at_atomctl(void);
void at_set_atomctl(unsigned);
unsigned at_cas(unsigned *p, unsigned expected, unsigned value);

volatile int which = 99; /* in .data, so the test can patch it */

static unsigned word;

static void cas(const char *name, unsigned expected, unsigned value) {
  unsigned old = at_cas(&word, expected, value);
  t_puts(name);
  t_puts(" old=");
  t_putx(old);
  t_puts(" now=");
  t_putx(word);
  t_puts("\n");
}

int main(void) {
  t_show("atomctl_reset", (int)at_atomctl());
  at_set_atomctl(0xffffffffu);
  t_show("atomctl_mask", (int)at_atomctl());
  static const unsigned allowing[] = {0x15, 0x2a, 0x3f, 0x01, 0x02, 0x03, 0x3d};
  for (unsigned i = 0; i < sizeof allowing / sizeof allowing[0]; i++) {
    at_set_atomctl(allowing[i]);
    t_show("policy", (int)at_atomctl());
    word = 5;
    cas(" hit", 5, 0x1234 + i);
    cas(" miss", 5, 0x9999);
  }
  unsigned *odd = (unsigned *)((char *)&word + OPAQUE(2));
  switch (OPAQUE(which)) {
    case 1: /* the reset policy: bypass field 0 */
      at_set_atomctl(0x28);
      cas("reset_policy", 0, 1);
      break;
    case 2: /* only the cached fields allow it */
      at_set_atomctl(0x3c);
      cas("cached_only", 0, 1);
      break;
    case 3: /* allowed, but unaligned */
      at_set_atomctl(0x15);
      t_show("unaligned", (int)at_cas(odd, 0, 1));
      break;
    case 4: /* forbidden and unaligned: the policy is checked first */
      at_set_atomctl(0);
      t_show("both", (int)at_cas(odd, 0, 1));
      break;
  }
  return 21;
}
