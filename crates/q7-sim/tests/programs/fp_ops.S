/* One function per FP instruction under test, on raw bit patterns:
 * unsigned op(unsigned a, unsigned b[, unsigned c]) and conversions. */
#define BIN(name, insn)      \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; wfr f1, a2; wfr f2, a3; insn f0, f1, f2; rfr a2, f0; retw.n

#define FMA(name, insn)      \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; wfr f0, a2; wfr f1, a3; wfr f2, a4; insn f0, f1, f2; rfr a2, f0; retw.n

#define TOINT(name, insn, scale) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; wfr f1, a2; insn a2, f1, scale; retw.n

#define FROMINT(name, insn, scale) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; insn f1, a2, scale; rfr a2, f1; retw.n

BIN(fp_add, add.s)
BIN(fp_sub, sub.s)
BIN(fp_mul, mul.s)
FMA(fp_madd, madd.s)
FMA(fp_msub, msub.s)
TOINT(fp_round0, round.s, 0)
TOINT(fp_trunc0, trunc.s, 0)
TOINT(fp_trunc2, trunc.s, 2)
TOINT(fp_floor0, floor.s, 0)
TOINT(fp_ceil1, ceil.s, 1)
TOINT(fp_utrunc0, utrunc.s, 0)
FROMINT(fp_float0, float.s, 0)
FROMINT(fp_float2, float.s, 2)
FROMINT(fp_ufloat3, ufloat.s, 3)

/* Compares: returns the boolean b0 as 0/1. */
#define CMP(name, insn) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; wfr f1, a2; wfr f2, a3; insn b0, f1, f2; movi a2, 0; movi a3, 1; movt a2, a3, b0; retw.n

CMP(fp_un, un.s)
CMP(fp_oeq, oeq.s)
CMP(fp_ueq, ueq.s)
CMP(fp_olt, olt.s)
CMP(fp_ult, ult.s)
CMP(fp_ole, ole.s)
CMP(fp_ule, ule.s)

	.section .text.fp_set_fcr, "ax", @progbits
	.global fp_set_fcr
	.p2align 2
fp_set_fcr:
	entry	a1, 32
	wur	a2, fcr
	retw.n

	.section .text.fp_fcr, "ax", @progbits
	.global fp_fcr
	.p2align 2
fp_fcr:
	entry	a1, 32
	rur	a2, fcr
	retw.n

	.section .text.fp_set_fsr, "ax", @progbits
	.global fp_set_fsr
	.p2align 2
fp_set_fsr:
	entry	a1, 32
	wur	a2, fsr
	retw.n

	.section .text.fp_fsr, "ax", @progbits
	.global fp_fsr
	.p2align 2
fp_fsr:	/* returns FSR and clears it */
	entry	a1, 32
	rur	a2, fsr
	movi	a3, 0
	wur	a3, fsr
	retw.n

	.section .note.GNU-stack, "", @progbits
