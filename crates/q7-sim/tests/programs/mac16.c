/* MAC16 on the boards that have it: every multiply and multiply-accumulate
 * form (ll/hl/lh/hh halves; a and m register operands; the ldinc/lddec
 * forms that load an m register while they multiply) over edge and
 * pseudo-random operands and accumulators, the 40-bit accumulator wrapping
 * and its sign-extended ACCHI; a checksum per instruction and a few values
 * in full. An unaligned ldinc raises LoadStoreAlignment (skipped here). */
#include "rt.h"
#include "sys.h"

struct mac {
  unsigned acclo, acchi, m[4], ptr;
};

void m_umul_aa_ll(unsigned, unsigned, struct mac *);
void m_umul_aa_hl(unsigned, unsigned, struct mac *);
void m_umul_aa_lh(unsigned, unsigned, struct mac *);
void m_umul_aa_hh(unsigned, unsigned, struct mac *);
void m_mul_aa_ll(unsigned, unsigned, struct mac *);
void m_mul_ad_ll(unsigned, unsigned, struct mac *);
void m_mul_da_ll(unsigned, unsigned, struct mac *);
void m_mul_dd_ll(unsigned, unsigned, struct mac *);
void m_mul_aa_hl(unsigned, unsigned, struct mac *);
void m_mul_ad_hl(unsigned, unsigned, struct mac *);
void m_mul_da_hl(unsigned, unsigned, struct mac *);
void m_mul_dd_hl(unsigned, unsigned, struct mac *);
void m_mul_aa_lh(unsigned, unsigned, struct mac *);
void m_mul_ad_lh(unsigned, unsigned, struct mac *);
void m_mul_da_lh(unsigned, unsigned, struct mac *);
void m_mul_dd_lh(unsigned, unsigned, struct mac *);
void m_mul_aa_hh(unsigned, unsigned, struct mac *);
void m_mul_ad_hh(unsigned, unsigned, struct mac *);
void m_mul_da_hh(unsigned, unsigned, struct mac *);
void m_mul_dd_hh(unsigned, unsigned, struct mac *);
void m_mula_aa_ll(unsigned, unsigned, struct mac *);
void m_mula_ad_ll(unsigned, unsigned, struct mac *);
void m_mula_da_ll(unsigned, unsigned, struct mac *);
void m_mula_dd_ll(unsigned, unsigned, struct mac *);
void m_mula_aa_hl(unsigned, unsigned, struct mac *);
void m_mula_ad_hl(unsigned, unsigned, struct mac *);
void m_mula_da_hl(unsigned, unsigned, struct mac *);
void m_mula_dd_hl(unsigned, unsigned, struct mac *);
void m_mula_aa_lh(unsigned, unsigned, struct mac *);
void m_mula_ad_lh(unsigned, unsigned, struct mac *);
void m_mula_da_lh(unsigned, unsigned, struct mac *);
void m_mula_dd_lh(unsigned, unsigned, struct mac *);
void m_mula_aa_hh(unsigned, unsigned, struct mac *);
void m_mula_ad_hh(unsigned, unsigned, struct mac *);
void m_mula_da_hh(unsigned, unsigned, struct mac *);
void m_mula_dd_hh(unsigned, unsigned, struct mac *);
void m_muls_aa_ll(unsigned, unsigned, struct mac *);
void m_muls_ad_ll(unsigned, unsigned, struct mac *);
void m_muls_da_ll(unsigned, unsigned, struct mac *);
void m_muls_dd_ll(unsigned, unsigned, struct mac *);
void m_muls_aa_hl(unsigned, unsigned, struct mac *);
void m_muls_ad_hl(unsigned, unsigned, struct mac *);
void m_muls_da_hl(unsigned, unsigned, struct mac *);
void m_muls_dd_hl(unsigned, unsigned, struct mac *);
void m_muls_aa_lh(unsigned, unsigned, struct mac *);
void m_muls_ad_lh(unsigned, unsigned, struct mac *);
void m_muls_da_lh(unsigned, unsigned, struct mac *);
void m_muls_dd_lh(unsigned, unsigned, struct mac *);
void m_muls_aa_hh(unsigned, unsigned, struct mac *);
void m_muls_ad_hh(unsigned, unsigned, struct mac *);
void m_muls_da_hh(unsigned, unsigned, struct mac *);
void m_muls_dd_hh(unsigned, unsigned, struct mac *);
void m_mula_da_ll_ldinc(unsigned, unsigned, struct mac *);
void m_mula_dd_ll_ldinc(unsigned, unsigned, struct mac *);
void m_mula_da_ll_lddec(unsigned, unsigned, struct mac *);
void m_mula_dd_ll_lddec(unsigned, unsigned, struct mac *);
void m_mula_da_hl_ldinc(unsigned, unsigned, struct mac *);
void m_mula_dd_hl_ldinc(unsigned, unsigned, struct mac *);
void m_mula_da_hl_lddec(unsigned, unsigned, struct mac *);
void m_mula_dd_hl_lddec(unsigned, unsigned, struct mac *);
void m_mula_da_lh_ldinc(unsigned, unsigned, struct mac *);
void m_mula_dd_lh_ldinc(unsigned, unsigned, struct mac *);
void m_mula_da_lh_lddec(unsigned, unsigned, struct mac *);
void m_mula_dd_lh_lddec(unsigned, unsigned, struct mac *);
void m_mula_da_hh_ldinc(unsigned, unsigned, struct mac *);
void m_mula_dd_hh_ldinc(unsigned, unsigned, struct mac *);
void m_mula_da_hh_lddec(unsigned, unsigned, struct mac *);
void m_mula_dd_hh_lddec(unsigned, unsigned, struct mac *);
void m_ldinc(unsigned, unsigned, struct mac *);
void m_lddec(unsigned, unsigned, struct mac *);

static const struct {
  const char *name;
  void (*f)(unsigned, unsigned, struct mac *);
} ops[] = {
    {"umul.aa.ll", m_umul_aa_ll},
    {"umul.aa.hl", m_umul_aa_hl},
    {"umul.aa.lh", m_umul_aa_lh},
    {"umul.aa.hh", m_umul_aa_hh},
    {"mul.aa.ll", m_mul_aa_ll},
    {"mul.ad.ll", m_mul_ad_ll},
    {"mul.da.ll", m_mul_da_ll},
    {"mul.dd.ll", m_mul_dd_ll},
    {"mul.aa.hl", m_mul_aa_hl},
    {"mul.ad.hl", m_mul_ad_hl},
    {"mul.da.hl", m_mul_da_hl},
    {"mul.dd.hl", m_mul_dd_hl},
    {"mul.aa.lh", m_mul_aa_lh},
    {"mul.ad.lh", m_mul_ad_lh},
    {"mul.da.lh", m_mul_da_lh},
    {"mul.dd.lh", m_mul_dd_lh},
    {"mul.aa.hh", m_mul_aa_hh},
    {"mul.ad.hh", m_mul_ad_hh},
    {"mul.da.hh", m_mul_da_hh},
    {"mul.dd.hh", m_mul_dd_hh},
    {"mula.aa.ll", m_mula_aa_ll},
    {"mula.ad.ll", m_mula_ad_ll},
    {"mula.da.ll", m_mula_da_ll},
    {"mula.dd.ll", m_mula_dd_ll},
    {"mula.aa.hl", m_mula_aa_hl},
    {"mula.ad.hl", m_mula_ad_hl},
    {"mula.da.hl", m_mula_da_hl},
    {"mula.dd.hl", m_mula_dd_hl},
    {"mula.aa.lh", m_mula_aa_lh},
    {"mula.ad.lh", m_mula_ad_lh},
    {"mula.da.lh", m_mula_da_lh},
    {"mula.dd.lh", m_mula_dd_lh},
    {"mula.aa.hh", m_mula_aa_hh},
    {"mula.ad.hh", m_mula_ad_hh},
    {"mula.da.hh", m_mula_da_hh},
    {"mula.dd.hh", m_mula_dd_hh},
    {"muls.aa.ll", m_muls_aa_ll},
    {"muls.ad.ll", m_muls_ad_ll},
    {"muls.da.ll", m_muls_da_ll},
    {"muls.dd.ll", m_muls_dd_ll},
    {"muls.aa.hl", m_muls_aa_hl},
    {"muls.ad.hl", m_muls_ad_hl},
    {"muls.da.hl", m_muls_da_hl},
    {"muls.dd.hl", m_muls_dd_hl},
    {"muls.aa.lh", m_muls_aa_lh},
    {"muls.ad.lh", m_muls_ad_lh},
    {"muls.da.lh", m_muls_da_lh},
    {"muls.dd.lh", m_muls_dd_lh},
    {"muls.aa.hh", m_muls_aa_hh},
    {"muls.ad.hh", m_muls_ad_hh},
    {"muls.da.hh", m_muls_da_hh},
    {"muls.dd.hh", m_muls_dd_hh},
    {"mula.da.ll.ldinc", m_mula_da_ll_ldinc},
    {"mula.dd.ll.ldinc", m_mula_dd_ll_ldinc},
    {"mula.da.ll.lddec", m_mula_da_ll_lddec},
    {"mula.dd.ll.lddec", m_mula_dd_ll_lddec},
    {"mula.da.hl.ldinc", m_mula_da_hl_ldinc},
    {"mula.dd.hl.ldinc", m_mula_dd_hl_ldinc},
    {"mula.da.hl.lddec", m_mula_da_hl_lddec},
    {"mula.dd.hl.lddec", m_mula_dd_hl_lddec},
    {"mula.da.lh.ldinc", m_mula_da_lh_ldinc},
    {"mula.dd.lh.ldinc", m_mula_dd_lh_ldinc},
    {"mula.da.lh.lddec", m_mula_da_lh_lddec},
    {"mula.dd.lh.lddec", m_mula_dd_lh_lddec},
    {"mula.da.hh.ldinc", m_mula_da_hh_ldinc},
    {"mula.dd.hh.ldinc", m_mula_dd_hh_ldinc},
    {"mula.da.hh.lddec", m_mula_da_hh_lddec},
    {"mula.dd.hh.lddec", m_mula_dd_hh_lddec},
    {"ldinc", m_ldinc},
    {"lddec", m_lddec}
};

static unsigned words[8] = {0x11112222, 0x80007fff, 0xffff8000, 0x12345678, 0x9abcdef0, 0x7fff7fff, 0x80008000, 1};

static unsigned seed = 12345;
static unsigned next(void) {
  seed = seed * 1103515245u + 12345u;
  return seed ^ (seed >> 15);
}

static const unsigned edges[] = {0, 1, 0xffff, 0x8000, 0x7fff, 0x80000000u, 0x7fff8000, 0xffffffffu, 0x00017fff};
#define NEDGES (sizeof edges / sizeof edges[0])

static unsigned mix(unsigned h, unsigned v) { return (h ^ v) * 16777619u; }

int main(void) {
  sys_vectors_on();
  sys_rec.skip = 3;
  unsigned nops = sizeof ops / sizeof ops[0];
  for (unsigned i = 0; i < nops; i++) {
    unsigned h = 2166136261u;
    for (unsigned k = 0; k < 64; k++) {
      unsigned x = k < NEDGES * 4 ? edges[k % NEDGES] : next();
      unsigned y = k < NEDGES * 4 ? edges[(k / 4 + k) % NEDGES] : next();
      struct mac st = {k & 1 ? 0xffffffffu : next(), k & 2 ? 0x7f : (k & 4 ? 0xffffff80u : 0), {x, x, y, y},
                       (unsigned)&words[3 + (k & 1)]};
      ops[i].f(x, y, &st);
      h = mix(h, st.acclo);
      h = mix(h, st.acchi);
      for (int m = 0; m < 4; m++) h = mix(h, st.m[m]);
      h = mix(h, st.ptr - (unsigned)words);
      if (k == 5 || k == 17) {
        t_puts(ops[i].name);
        t_puts(" acc=");
        t_putx(st.acchi);
        t_puts(":");
        t_putx(st.acclo);
        t_puts(" m=");
        for (int m = 0; m < 4; m++) {
          t_putx(st.m[m]);
          t_puts(m < 3 ? "," : "");
        }
        t_puts("\n");
      }
    }
    t_puts(ops[i].name);
    t_puts(" sum ");
    t_putx(h);
    t_puts("\n");
  }
  /* An unaligned load pointer: LoadStoreAlignment, the registers unchanged. */
  sys_rec.count = 0;
  struct mac st = {5, 0, {1, 2, 3, 4}, (unsigned)words + 1};
  m_ldinc(0, 0, &st);
  t_puts("unaligned ldinc: exceptions ");
  t_putu(sys_rec.count);
  t_puts(" cause ");
  t_putu(sys_rec.cause);
  t_puts(" m3 ");
  t_putx(st.m[3]);
  t_puts(" ptr+");
  t_putu(st.ptr - (unsigned)words);
  t_puts("\n");
  return 29;
}
