/* The double-precision FP option on de233_fpu (64-bit f registers): every
 * arithmetic, conversion and compare over edge operands in the four FCR
 * rounding modes (a checksum of results and FSR per instruction and mode),
 * the step instructions, wfrd/rfrd, how single ops set the high half,
 * the updating loads and stores, alignment and CPENABLE. The instructions
 * under test are in dfp_insns.S. */
#include "rt.h"
#include "sys.h"

typedef void dop(const unsigned *in, unsigned *out);
dop d_add, d_sub, d_mul, d_madd, d_msub, d_maddn, d_divn, d_round0, d_trunc0, d_trunc3, d_floor0, d_ceil2,
    d_utrunc0, d_float0, d_float5, d_ufloat3, d_mov, d_abs, d_cvts, d_const0, d_const1, d_const2, d_const3,
    d_rfrd, d_neg, d_div0, d_sqrt0, d_nexp01, d_mksadj, d_mkdadj, d_addexp, d_addexpm, d_recip0, d_rsqrt0,
    d_cvtd, d_un, d_oeq, d_ueq, d_olt, d_ult, d_ole, d_ule;
void d_wfrd(unsigned hi, unsigned lo, unsigned out[2]);
void d_after(unsigned which, unsigned hi, unsigned lo, unsigned out[2]);
void d_ldst(unsigned *buf, unsigned out[6]);
unsigned d_ldi_at(void *p);
void d_sdi_at(void *p, unsigned hi);
unsigned d_cp_off(void);
unsigned d_dbreak_ldi(void *p, unsigned a, unsigned c), d_dbreak_sdi(void *p, unsigned a, unsigned c);
void fp_set_fcr(unsigned), fp_set_fsr(unsigned);
unsigned fp_fsr(void);

/* Doubles as (low, high) words. */
static const unsigned values[][2] = {
    {0, 0},                   /* 0 */
    {0, 0x80000000u},         /* -0 */
    {0, 0x3ff00000u},         /* 1 */
    {0, 0xbff00000u},         /* -1 */
    {0, 0x3ff80000u},         /* 1.5 */
    {0, 0x40080000u},         /* 3 */
    {0x55555555u, 0x3fd55555u}, /* 1/3 */
    {0x54442d18u, 0x400921fbu}, /* pi */
    {0x85ebc8a0u, 0x7fe1ccf3u}, /* 1e308 */
    {0x85ebc8a0u, 0xffe1ccf3u}, /* -1e308 */
    {0, 0x00100000u},         /* smallest normal */
    {1, 0},                   /* smallest subnormal */
    {0x88e368f1u, 0xbef4f8b5u}, /* -2e-5 */
    {0, 0x41e00000u},         /* 2^31 */
    {0, 0xc1e00000u},         /* -2^31 */
    {0, 0x7ff00000u},         /* inf */
    {0, 0xfff00000u},         /* -inf */
    {1, 0x7ff80000u},         /* quiet NaN */
    {2, 0xfff00000u},         /* signalling NaN */
};
#define NV (sizeof values / sizeof values[0])

static const unsigned ints[] = {0, 1, 0xffffffffu, 0x7fffffffu, 0x80000000u, 12345, 0xfffffff3u};
#define NI (sizeof ints / sizeof ints[0])

static unsigned in[8] __attribute__((aligned(8)));
static unsigned out[5];
static unsigned sum;

static void mix(unsigned v) {
  sum = (sum ^ v) * 0x01000193u;
  sum ^= sum >> 15;
}

static void run(dop *f) {
  out[0] = out[1] = out[3] = out[4] = 0x5a5a5a5au;
  fp_set_fsr(0);
  f(in, out);
  unsigned fsr = fp_fsr();
  mix(out[0]);
  mix(out[1]);
  mix(fsr);
  mix(out[3]);
  mix(out[4]);
#ifdef VERBOSE /* CFLAGS=-DVERBOSE: every case, to find a differing one */
  for (int i = 0; i < 8; i++) t_putx(in[i]), t_puts(" ");
  t_puts("-> ");
  t_putx(out[1]), t_puts(" "), t_putx(out[0]), t_puts(" "), t_putx(fsr), t_puts(" ");
  t_putx(out[3]), t_puts(" "), t_putx(out[4]), t_puts("\n");
#endif
}

static void set(unsigned at, unsigned i) {
  in[at] = values[i][0];
  in[at + 1] = values[i][1];
}

struct op {
  const char *name;
  dop *f;
  int arity; /* 1: f1; 2: f1, f2; 3: f1, f2, f0; 0: a8 */
};

static const struct op ops[] = {
    {"add.d", d_add, 2},       {"sub.d", d_sub, 2},       {"mul.d", d_mul, 2},       {"madd.d", d_madd, 3},
    {"msub.d", d_msub, 3},     {"round.d", d_round0, 1},  {"trunc.d", d_trunc0, 1},  {"trunc.d/3", d_trunc3, 1},
    {"floor.d", d_floor0, 1},  {"ceil.d/2", d_ceil2, 1},  {"utrunc.d", d_utrunc0, 1}, {"float.d", d_float0, 0},
    {"float.d/5", d_float5, 0}, {"ufloat.d/3", d_ufloat3, 0}, {"mov.d", d_mov, 1},    {"abs.d", d_abs, 1},
    {"neg.d", d_neg, 1},       {"cvts.d", d_cvts, 1},     {"cvtd.s", d_cvtd, 1},     {"rfrd", d_rfrd, 1},
    {"const.d", d_const0, 1},  {"const.d/1", d_const1, 1}, {"const.d/2", d_const2, 1}, {"const.d/3", d_const3, 1},
    {"un.d", d_un, 2},         {"oeq.d", d_oeq, 2},       {"ueq.d", d_ueq, 2},       {"olt.d", d_olt, 2},
    {"ult.d", d_ult, 2},       {"ole.d", d_ole, 2},       {"ule.d", d_ule, 2},       {"mkdadj.d", d_mkdadj, 2},
    {"mksadj.d", d_mksadj, 1}, {"div0.d", d_div0, 1},     {"sqrt0.d", d_sqrt0, 1},   {"nexp01.d", d_nexp01, 1},
    {"addexp.d", d_addexp, 1}, {"addexpm.d", d_addexpm, 1}, {"maddn.d", d_maddn, 3}, {"divn.d", d_divn, 3},
};

static void checksums(void) {
  for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    for (unsigned mode = 0; mode < 4; mode++) {
      fp_set_fcr(mode);
      sum = 0x811c9dc5u;
      const struct op *o = &ops[k];
      /* f0 starts as 1.5 unless the op reads it (mkdadj.d reads f0 too). */
      set(4, 4);
      if (o->arity == 0) {
        for (unsigned i = 0; i < NI; i++) {
          in[7] = ints[i];
          run(o->f);
        }
      }
      for (unsigned i = 0; o->arity > 0 && i < NV; i++) {
        set(0, i);
        for (unsigned j = 0; j < (o->arity > 1 ? NV : 1); j++) {
          set(2, j);
          for (unsigned l = 0; l < (o->arity > 2 ? NV : 1); l++) {
            if (o->arity > 2) set(4, l);
            run(o->f);
          }
        }
      }
      t_puts(o->name);
      t_puts(" mode ");
      t_putu(mode);
      t_puts(" sum ");
      t_putx(sum);
      t_puts("\n");
    }
  }
  fp_set_fcr(0);
}

static void show2(const char *name, unsigned a, unsigned b) {
  t_puts(name);
  t_puts(" ");
  t_putx(a);
  t_puts(" ");
  t_putx(b);
  t_puts("\n");
}

int main(void) {
  sys_vectors_on();
  checksums();

  unsigned r[6];
  d_wfrd(0x12345678u, 0x9abcdef0u, r);
  show2("wfrd", r[0], r[1]);
  static const char *after[] = {"add.s", "mov.s", "lsi", "const.s", "moveqz.s", "wfr", "movt.s", "float.s", "abs.s"};
  for (unsigned pass = 0; pass < 2; pass++) {
    for (unsigned w = 0; w < 9; w++) {
      d_after(w, 0xdeadbeefu, 0xbf800000u, r);
      t_puts("hi after ");
      show2(after[w], r[0], r[1]);
    }
  }

  static unsigned long long buf[4] = {0x1111111122222222ull, 0x3333333344444444ull, 0x5555555566666666ull,
                                      0x7777777788888888ull};
  d_ldst((unsigned *)buf, r);
  show2("ldst bases", r[0], r[1]);
  show2("ldst base", r[2], r[3]);
  show2("ldst hi", r[4], r[5]);
  for (int i = 0; i < 4; i++) show2("ldst buf", (unsigned)(buf[i] >> 32), (unsigned)buf[i]);

  /* Misaligned ldi/sdi: LoadStoreAlignment (9) with the address. */
  static unsigned long long cell[3];
  sys_rec.count = 0;
  sys_rec.skip = 3;
  d_ldi_at((char *)cell + 4);
  show2("ldi +4: count cause", sys_rec.count, sys_rec.cause);
  show2("ldi +4: vaddr ok", sys_rec.vaddr == (unsigned)cell + 4, 0);
  sys_rec.count = 0;
  d_sdi_at((char *)cell + 2, 0x40000000u);
  show2("sdi +2: count cause", sys_rec.count, sys_rec.cause);
  d_sdi_at(cell, 0x40000000u);
  show2("sdi: cell", (unsigned)(cell[1] >> 32), (unsigned)cell[1]);

  /* recip0.d and rsqrt0.d, and add.d with coprocessor 0 disabled. */
  sys_rec.count = 0;
  d_recip0(in, out);
  d_rsqrt0(in, out);
  show2("recip0/rsqrt0: count cause", sys_rec.count, sys_rec.cause);
  sys_rec.count = 0;
  unsigned cp = d_cp_off();
  show2("cp off: count cause", sys_rec.count, sys_rec.cause);
  show2("cp off: cpenable", cp, 0);
  /* DBREAK on the 8-byte accesses (the level-6 handler disarms it). */
  static const struct {
    const char *name;
    int store;
    unsigned at, control;
  } watches[] = {
      {"dbreak ldi byte 4", 0, 12, (1u << 30) | 0x3f}, {"dbreak sdi byte 7", 1, 15, (1u << 31) | 0x3f},
      {"dbreak ldi on sb", 0, 8, (1u << 31) | 0x38},   {"dbreak ldi next", 0, 16, (1u << 30) | 0x38},
  };
  for (unsigned i = 0; i < 4; i++) {
    sys_irq.seq = 0;
    sys_irq.debugcause = 0;
    sys_irq.epc_add = 0;
    unsigned base = (unsigned)cell;
    unsigned pc = watches[i].store ? d_dbreak_sdi(&cell[1], base + watches[i].at, watches[i].control)
                                   : d_dbreak_ldi(&cell[1], base + watches[i].at, watches[i].control);
    t_puts(watches[i].name);
    show2(":", sys_irq.seq, sys_irq.debugcause);
    show2(" epc ok", sys_irq.seq ? sys_irq.epc == pc : 0, 0);
  }
  sys_rec.skip = 0;
  t_puts("done\n");
  return 43;
}
