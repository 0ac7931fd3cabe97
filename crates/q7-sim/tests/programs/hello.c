#include "rt.h"
int main(void) {
  t_puts("hello ");
  t_putd(-42);
  t_puts(" ");
  t_putx(0xbeefu);
  t_puts("\n");
  return 3;
}
