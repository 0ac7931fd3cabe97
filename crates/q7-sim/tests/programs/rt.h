/* The test programs' tiny runtime: console output and exit through simcall.
 * No varargs: clang-22's windowed Xtensa varargs prologue overwrites the
 * sixth argument register with its frame pointer, so printf-style helpers
 * would test the compiler rather than the simulators. */
#ifndef RT_H
#define RT_H
int t_simcall(int call, int a, int b, int c);
void t_puts(const char *s);
void t_putd(int v);
void t_putu(unsigned v);
void t_putx(unsigned v);
/* "name=value\n" in decimal and hex. */
void t_show(const char *name, int v);
void t_exit(int status) __attribute__((noreturn));
/* Keeps the compiler from folding a value known at compile time. */
#define OPAQUE(x) ({ __typeof__(x) _v = (x); __asm__ volatile("" : "+r"(_v)); _v; })
#define CHECK(cond)                        \
  do {                                     \
    if (!(cond)) {                         \
      t_puts("FAIL line ");                \
      t_putd(__LINE__);                    \
      t_puts(": " #cond "\n");             \
      t_exit(1);                           \
    }                                      \
  } while (0)
#endif
