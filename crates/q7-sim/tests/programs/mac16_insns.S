/* The MAC16 instructions for mac16.c: one function per instruction,
 * void f(unsigned x, unsigned y, struct mac *st), which loads ACCLO,
 * ACCHI, M0..M3 and the load pointer (a5) from st, runs the instruction
 * with x in a2 and y in a3, and stores them all back. */
#include "sysvec.inc"

#define PRO(name) \
	.section .text.name, "ax", @progbits; \
	.global name; \
	.p2align 2; \
name: \
	entry	a1, 32; \
	l32i	a8, a4, 0; wsr a8, acclo; \
	l32i	a8, a4, 4; wsr a8, acchi; \
	l32i	a8, a4, 8; wsr a8, m0; \
	l32i	a8, a4, 12; wsr a8, m1; \
	l32i	a8, a4, 16; wsr a8, m2; \
	l32i	a8, a4, 20; wsr a8, m3; \
	l32i	a5, a4, 24

#define EPI \
	rsr	a8, acclo; s32i a8, a4, 0; \
	rsr	a8, acchi; s32i a8, a4, 4; \
	rsr	a8, m0; s32i a8, a4, 8; \
	rsr	a8, m1; s32i a8, a4, 12; \
	rsr	a8, m2; s32i a8, a4, 16; \
	rsr	a8, m3; s32i a8, a4, 20; \
	s32i	a5, a4, 24; \
	retw

#define FN(name, ...) PRO(name); __VA_ARGS__; EPI

FN(m_umul_aa_ll, umul.aa.ll a2, a3)
FN(m_umul_aa_hl, umul.aa.hl a2, a3)
FN(m_umul_aa_lh, umul.aa.lh a2, a3)
FN(m_umul_aa_hh, umul.aa.hh a2, a3)
FN(m_mul_aa_ll, mul.aa.ll a2, a3)
FN(m_mul_ad_ll, mul.ad.ll a2, m3)
FN(m_mul_da_ll, mul.da.ll m1, a3)
FN(m_mul_dd_ll, mul.dd.ll m0, m2)
FN(m_mul_aa_hl, mul.aa.hl a2, a3)
FN(m_mul_ad_hl, mul.ad.hl a2, m3)
FN(m_mul_da_hl, mul.da.hl m1, a3)
FN(m_mul_dd_hl, mul.dd.hl m0, m2)
FN(m_mul_aa_lh, mul.aa.lh a2, a3)
FN(m_mul_ad_lh, mul.ad.lh a2, m3)
FN(m_mul_da_lh, mul.da.lh m1, a3)
FN(m_mul_dd_lh, mul.dd.lh m0, m2)
FN(m_mul_aa_hh, mul.aa.hh a2, a3)
FN(m_mul_ad_hh, mul.ad.hh a2, m3)
FN(m_mul_da_hh, mul.da.hh m1, a3)
FN(m_mul_dd_hh, mul.dd.hh m0, m2)
FN(m_mula_aa_ll, mula.aa.ll a2, a3)
FN(m_mula_ad_ll, mula.ad.ll a2, m3)
FN(m_mula_da_ll, mula.da.ll m1, a3)
FN(m_mula_dd_ll, mula.dd.ll m0, m2)
FN(m_mula_aa_hl, mula.aa.hl a2, a3)
FN(m_mula_ad_hl, mula.ad.hl a2, m3)
FN(m_mula_da_hl, mula.da.hl m1, a3)
FN(m_mula_dd_hl, mula.dd.hl m0, m2)
FN(m_mula_aa_lh, mula.aa.lh a2, a3)
FN(m_mula_ad_lh, mula.ad.lh a2, m3)
FN(m_mula_da_lh, mula.da.lh m1, a3)
FN(m_mula_dd_lh, mula.dd.lh m0, m2)
FN(m_mula_aa_hh, mula.aa.hh a2, a3)
FN(m_mula_ad_hh, mula.ad.hh a2, m3)
FN(m_mula_da_hh, mula.da.hh m1, a3)
FN(m_mula_dd_hh, mula.dd.hh m0, m2)
FN(m_muls_aa_ll, muls.aa.ll a2, a3)
FN(m_muls_ad_ll, muls.ad.ll a2, m3)
FN(m_muls_da_ll, muls.da.ll m1, a3)
FN(m_muls_dd_ll, muls.dd.ll m0, m2)
FN(m_muls_aa_hl, muls.aa.hl a2, a3)
FN(m_muls_ad_hl, muls.ad.hl a2, m3)
FN(m_muls_da_hl, muls.da.hl m1, a3)
FN(m_muls_dd_hl, muls.dd.hl m0, m2)
FN(m_muls_aa_lh, muls.aa.lh a2, a3)
FN(m_muls_ad_lh, muls.ad.lh a2, m3)
FN(m_muls_da_lh, muls.da.lh m1, a3)
FN(m_muls_dd_lh, muls.dd.lh m0, m2)
FN(m_muls_aa_hh, muls.aa.hh a2, a3)
FN(m_muls_ad_hh, muls.ad.hh a2, m3)
FN(m_muls_da_hh, muls.da.hh m1, a3)
FN(m_muls_dd_hh, muls.dd.hh m0, m2)
FN(m_mula_da_ll_ldinc, mula.da.ll.ldinc m0, a5, m0, a3)
FN(m_mula_dd_ll_ldinc, mula.dd.ll.ldinc m2, a5, m1, m2)
FN(m_mula_da_ll_lddec, mula.da.ll.lddec m0, a5, m0, a3)
FN(m_mula_dd_ll_lddec, mula.dd.ll.lddec m2, a5, m1, m2)
FN(m_mula_da_hl_ldinc, mula.da.hl.ldinc m0, a5, m0, a3)
FN(m_mula_dd_hl_ldinc, mula.dd.hl.ldinc m2, a5, m1, m2)
FN(m_mula_da_hl_lddec, mula.da.hl.lddec m0, a5, m0, a3)
FN(m_mula_dd_hl_lddec, mula.dd.hl.lddec m2, a5, m1, m2)
FN(m_mula_da_lh_ldinc, mula.da.lh.ldinc m0, a5, m0, a3)
FN(m_mula_dd_lh_ldinc, mula.dd.lh.ldinc m2, a5, m1, m2)
FN(m_mula_da_lh_lddec, mula.da.lh.lddec m0, a5, m0, a3)
FN(m_mula_dd_lh_lddec, mula.dd.lh.lddec m2, a5, m1, m2)
FN(m_mula_da_hh_ldinc, mula.da.hh.ldinc m0, a5, m0, a3)
FN(m_mula_dd_hh_ldinc, mula.dd.hh.ldinc m2, a5, m1, m2)
FN(m_mula_da_hh_lddec, mula.da.hh.lddec m0, a5, m0, a3)
FN(m_mula_dd_hh_lddec, mula.dd.hh.lddec m2, a5, m1, m2)
FN(m_ldinc, ldinc m3, a5)
FN(m_lddec, lddec m3, a5)

	.section .note.GNU-stack, "", @progbits
