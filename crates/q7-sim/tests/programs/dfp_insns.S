/* The double-precision instructions for dfp.c. Neither LLVM 22 nor GNU as
 * for lx106 knows the DFP option, so each is emitted as bytes (encodings
 * from QEMU's de233_fpu tables), named in a comment. */
#include "sysvec.inc"

/* op0 = 0 RRR: op1, op2, r, s, t. */
#define RRR(op1, op2, r, s, t) .byte ((t) << 4), (((r) << 4) | (s)), (((op2) << 4) | (op1))
/* op0 = 3 (LSCI): r selects ldi/sdi/ldip/sdip; offset in bytes (x 8). */
#define LSCI(r, t, s, off) .byte (((t) << 4) | 3), (((r) << 4) | (s)), ((off) / 8)
#define LDI(t, s, off) LSCI(1, t, s, off)	/* ldi ft, as, off */
#define SDI(t, s, off) LSCI(5, t, s, off)	/* sdi ft, as, off */
#define LDIP(t, s, off) LSCI(9, t, s, off)	/* ldip ft, as, off */
#define SDIP(t, s, off) LSCI(13, t, s, off)	/* sdip ft, as, off */
#define RFRD(r, s) RRR(15, 15, r, s, 4)		/* rfrd ar, fs */
#define WFRD(r, s, t) RRR(14, 8, r, s, t)	/* wfrd fr, as(high), at(low) */

#define FUNC(name) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32

/* void name(const unsigned in[8], unsigned out[5]): f1 = in[0..1],
 * f2 = in[2..3], f0 = in[4..5], a8 = in[7], b0 = 0; the instruction; then
 * out[0..1] = f0, out[3] = a8, out[4] = BR. */
#define DOP(name, ...) \
FUNC(name); \
	LDI(1, 2, 0); LDI(2, 2, 8); LDI(0, 2, 16); l32i a8, a2, 28; \
	movi a9, 0; wsr a9, br; \
	__VA_ARGS__; \
	SDI(0, 3, 0); s32i a8, a3, 12; rsr a9, br; s32i a9, a3, 16; retw

DOP(d_add, RRR(15, 0, 0, 1, 2))		/* add.d f0, f1, f2 */
DOP(d_sub, RRR(15, 1, 0, 1, 2))		/* sub.d f0, f1, f2 */
DOP(d_mul, RRR(15, 2, 0, 1, 2))		/* mul.d f0, f1, f2 */
DOP(d_madd, RRR(15, 4, 0, 1, 2))	/* madd.d f0, f1, f2 */
DOP(d_msub, RRR(15, 5, 0, 1, 2))	/* msub.d f0, f1, f2 */
DOP(d_maddn, RRR(15, 6, 0, 1, 2))	/* maddn.d f0, f1, f2 */
DOP(d_divn, RRR(15, 7, 0, 1, 2))	/* divn.d f0, f1, f2 */
DOP(d_round0, RRR(15, 8, 8, 1, 0))	/* round.d a8, f1, 0 */
DOP(d_trunc0, RRR(15, 9, 8, 1, 0))	/* trunc.d a8, f1, 0 */
DOP(d_trunc3, RRR(15, 9, 8, 1, 3))	/* trunc.d a8, f1, 3 */
DOP(d_floor0, RRR(15, 10, 8, 1, 0))	/* floor.d a8, f1, 0 */
DOP(d_ceil2, RRR(15, 11, 8, 1, 2))	/* ceil.d a8, f1, 2 */
DOP(d_utrunc0, RRR(15, 14, 8, 1, 0))	/* utrunc.d a8, f1, 0 */
DOP(d_float0, RRR(15, 12, 0, 8, 0))	/* float.d f0, a8, 0 */
DOP(d_float5, RRR(15, 12, 0, 8, 5))	/* float.d f0, a8, 5 */
DOP(d_ufloat3, RRR(15, 13, 0, 8, 3))	/* ufloat.d f0, a8, 3 */
DOP(d_mov, RRR(15, 15, 0, 1, 0))	/* mov.d f0, f1 */
DOP(d_abs, RRR(15, 15, 0, 1, 1))	/* abs.d f0, f1 */
DOP(d_cvts, RRR(15, 15, 0, 1, 2))	/* cvts.d f0, f1 */
DOP(d_const0, RRR(15, 15, 0, 0, 3))	/* const.d f0, 0 */
DOP(d_const1, RRR(15, 15, 0, 1, 3))	/* const.d f0, 1 */
DOP(d_const2, RRR(15, 15, 0, 2, 3))	/* const.d f0, 2 */
DOP(d_const3, RRR(15, 15, 0, 3, 3))	/* const.d f0, 3 */
DOP(d_rfrd, RFRD(8, 1))			/* rfrd a8, f1 */
DOP(d_neg, RRR(15, 15, 0, 1, 6))	/* neg.d f0, f1 */
DOP(d_div0, RRR(15, 15, 0, 1, 7))	/* div0.d f0, f1 */
DOP(d_sqrt0, RRR(15, 15, 0, 1, 9))	/* sqrt0.d f0, f1 */
DOP(d_nexp01, RRR(15, 15, 0, 1, 11))	/* nexp01.d f0, f1 */
DOP(d_mksadj, RRR(15, 15, 0, 1, 12))	/* mksadj.d f0, f1 */
DOP(d_mkdadj, RRR(15, 15, 0, 1, 13))	/* mkdadj.d f0, f1 */
DOP(d_addexp, RRR(15, 15, 0, 1, 14))	/* addexp.d f0, f1 */
DOP(d_addexpm, RRR(15, 15, 0, 1, 15))	/* addexpm.d f0, f1 */
DOP(d_recip0, RRR(15, 15, 0, 1, 8))	/* recip0.d f0, f1 */
DOP(d_rsqrt0, RRR(15, 15, 0, 1, 10))	/* rsqrt0.d f0, f1 */
DOP(d_cvtd, RRR(10, 15, 0, 1, 2))	/* cvtd.s f0, f1 */
DOP(d_un, RRR(14, 1, 0, 1, 2))		/* un.d b0, f1, f2 */
DOP(d_oeq, RRR(14, 2, 0, 1, 2))		/* oeq.d b0, f1, f2 */
DOP(d_ueq, RRR(14, 3, 0, 1, 2))		/* ueq.d b0, f1, f2 */
DOP(d_olt, RRR(14, 4, 0, 1, 2))		/* olt.d b0, f1, f2 */
DOP(d_ult, RRR(14, 5, 0, 1, 2))		/* ult.d b0, f1, f2 */
DOP(d_ole, RRR(14, 6, 0, 1, 2))		/* ole.d b0, f1, f2 */
DOP(d_ule, RRR(14, 7, 0, 1, 2))		/* ule.d b0, f1, f2 */

/* void d_wfrd(unsigned hi, unsigned lo, unsigned out[2]): wfrd, then
 * rfrd and rfr of the register. */
FUNC(d_wfrd)
	WFRD(1, 2, 3)
	RFRD(8, 1); rfr a9, f1; s32i a8, a4, 0; s32i a9, a4, 4; retw

/* void d_after(unsigned which, unsigned hi, unsigned lo, unsigned out[2]):
 * f1 = hi:lo, f2 = lo:hi, then a single op writes f1; out = f1's halves.
 * which: 0 add.s f1,f1,f1; 1 mov.s f1,f2; 2 lsi f1 (word in[0] = lo);
 * 3 const.s f1,1; 4 moveqz.s f1,f2,a2 (a2 != 0: no move); 5 wfr f1,lo;
 * 6 movt.s f1,f2,b0 (b0 set); 7 float.s f1,a3,0; 8 abs.s f1,f2. */
/* Each case is a block of four ops the JIT compiles (with a hot threshold
 * of 1, from its second run: dfp.c runs each twice), so compiled code's
 * high halves are checked too. */
#define PAD movi a10, 0; movi a10, 0
FUNC(d_after)
	WFRD(1, 3, 4); WFRD(2, 4, 3)
	s32i a4, a1, 16
	movi a8, 1; wsr a8, br
	beqz a2, 0f; beqi a2, 1, 1f; beqi a2, 2, 2f; beqi a2, 3, 3f
	beqi a2, 4, 4f; beqi a2, 5, 5f; beqi a2, 6, 6f; beqi a2, 7, 7f
	abs.s f1, f2; PAD; j 9f
0:	add.s f1, f1, f1; PAD; j 9f
1:	mov.s f1, f2; PAD; j 9f
2:	lsi f1, a1, 16; PAD; j 9f
3:	const.s f1, 1; PAD; j 9f
4:	moveqz.s f1, f2, a2; PAD; j 9f
5:	wfr f1, a4; PAD; j 9f
6:	movt.s f1, f2, b0; PAD; j 9f
7:	float.s f1, a3, 0; PAD; j 9f
9:	RFRD(8, 1); rfr a9, f1; s32i a8, a5, 0; s32i a9, a5, 4; retw

/* void d_ldst(unsigned *buf, unsigned out[12]): buf holds 4 doubles;
 * ldip, ldx, ldxp, sdip, sdx, sdxp with the bases they leave. */
FUNC(d_ldst)
	mov a8, a2
	LDIP(1, 8, 8)			/* f1 = buf[0], a8 += 8 */
	sub a9, a8, a2; s32i a9, a3, 0
	movi a10, 16
	RRR(8, 2, 2, 8, 10)		/* ldx f2, a8, a10: buf[3] */
	RRR(8, 3, 0, 8, 10)		/* ldxp f0, a8, a10: buf[1], a8 += 16 */
	sub a9, a8, a2; s32i a9, a3, 4
	SDIP(2, 8, 0)			/* sdip f2, a8, 0: buf[3] = f2 */
	movi a10, -24
	RRR(8, 7, 0, 8, 10)		/* sdxp f0, a8, a10: buf[3] = f0, a8 -= 24 */
	sub a9, a8, a2; s32i a9, a3, 8
	movi a10, 16
	RRR(8, 6, 1, 8, 10)		/* sdx f1, a8, a10: buf[2] = f1 */
	RFRD(9, 1); s32i a9, a3, 12
	RFRD(9, 2); s32i a9, a3, 16
	RFRD(9, 0); s32i a9, a3, 20
	retw

/* unsigned d_ldi_at(void *p): ldi f1, a2, 0 (for the alignment check). */
FUNC(d_ldi_at)
	LDI(1, 2, 0)
	RFRD(2, 1); retw

/* void d_sdi_at(void *p, unsigned hi): f1 = hi:0; sdi f1, a2, 8. */
FUNC(d_sdi_at)
	movi a8, 0; WFRD(1, 3, 8)
	SDI(1, 2, 8)
	retw

/* unsigned d_cp_off(void): add.d with CPENABLE clear; returns CPENABLE. */
FUNC(d_cp_off)
	.byte 0x90, 0xe0, 0x03		/* rsr a9, cpenable */
	movi a8, 0
	.byte 0x80, 0xe0, 0x13		/* wsr a8, cpenable */
	rsync
	RRR(15, 0, 0, 1, 2)		/* add.d f0, f1, f2 */
	.byte 0x90, 0xe0, 0x13		/* wsr a9, cpenable */
	rsync
	mov a2, a9
	retw
/* unsigned d_dbreak_ldi(void *p, unsigned a, unsigned c), d_dbreak_sdi(...):
 * DBREAKA0/C0 = a, c, then ldi (sdi) f1 at p; returns the access's pc. */
	.section .text.d_dbreak_ldi, "ax", @progbits
	.p2align 2
.Ldldi_at:	.4byte 1f
	.global d_dbreak_ldi
d_dbreak_ldi:	entry a1, 32
	wsr a3, dbreaka0; wsr a4, dbreakc0; isync
1:	LDI(1, 2, 0)
	movi a3, 0; wsr a3, dbreakc0
	l32r a2, .Ldldi_at
	retw
	.section .text.d_dbreak_sdi, "ax", @progbits
	.p2align 2
.Ldsdi_at:	.4byte 1f
	.global d_dbreak_sdi
d_dbreak_sdi:	entry a1, 32
	wsr a3, dbreaka0; wsr a4, dbreakc0; isync
1:	SDI(1, 2, 0)
	movi a3, 0; wsr a3, dbreakc0
	l32r a2, .Ldsdi_at
	retw
	.section .note.GNU-stack, "", @progbits
