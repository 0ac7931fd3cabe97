/* The FP divide and square-root steps for fpdiv.c: the sequences libgcc's
 * __divsf3 and __ieee754_sqrtf run on cores with the FP divide and sqrt
 * options (what GCC and XCC emit for `/` and sqrtf), and each step alone on
 * raw bit patterns. */

/* unsigned fd_div(unsigned dividend, unsigned divisor) */
	.section .text.fd_div, "ax", @progbits
	.global fd_div
	.p2align 2
fd_div:
	entry	a1, 32
	wfr	f1, a2
	wfr	f2, a3
	div0.s	f3, f2
	nexp01.s	f4, f2
	const.s	f5, 1
	maddn.s	f5, f4, f3
	mov.s	f6, f3
	mov.s	f7, f2
	nexp01.s	f2, f1
	maddn.s	f6, f5, f6
	const.s	f5, 1
	const.s	f0, 0
	neg.s	f8, f2
	maddn.s	f5, f4, f6
	maddn.s	f0, f8, f3
	mkdadj.s	f7, f1
	maddn.s	f6, f5, f6
	maddn.s	f8, f4, f0
	const.s	f3, 1
	maddn.s	f3, f4, f6
	maddn.s	f0, f8, f6
	neg.s	f2, f2
	maddn.s	f6, f3, f6
	maddn.s	f2, f4, f0
	addexpm.s	f0, f7
	addexp.s	f6, f7
	divn.s	f0, f2, f6
	rfr	a2, f0
	retw.n

/* unsigned fd_sqrt(unsigned x) */
	.section .text.fd_sqrt, "ax", @progbits
	.global fd_sqrt
	.p2align 2
fd_sqrt:
	entry	a1, 32
	wfr	f1, a2
	sqrt0.s	f2, f1
	const.s	f3, 0
	maddn.s	f3, f2, f2
	nexp01.s	f4, f1
	const.s	f0, 3
	addexp.s	f4, f0
	maddn.s	f0, f3, f4
	nexp01.s	f3, f1
	neg.s	f5, f3
	maddn.s	f2, f0, f2
	const.s	f0, 0
	const.s	f6, 0
	const.s	f7, 0
	maddn.s	f0, f5, f2
	maddn.s	f6, f2, f4
	const.s	f4, 3
	maddn.s	f7, f4, f2
	maddn.s	f3, f0, f0
	maddn.s	f4, f6, f2
	neg.s	f2, f7
	maddn.s	f0, f3, f2
	maddn.s	f7, f4, f7
	mksadj.s	f2, f1
	nexp01.s	f1, f1
	maddn.s	f1, f0, f0
	neg.s	f3, f7
	addexpm.s	f0, f2
	addexp.s	f3, f2
	divn.s	f0, f1, f3
	rfr	a2, f0
	retw.n

/* Each step alone: unsigned fd_X(unsigned fr, unsigned fs[, unsigned ft])
 * stages the destination too, since some steps read it. */
#define STEP2(name, insn) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; wfr f0, a2; wfr f1, a3; insn f0, f1; rfr a2, f0; retw.n
#define STEP3(name, insn) \
	.section .text.name, "ax", @progbits; \
	.global name; .p2align 2; \
name:	entry a1, 32; wfr f0, a2; wfr f1, a3; wfr f2, a4; insn f0, f1, f2; rfr a2, f0; retw.n

STEP2(fd_div0, div0.s)
STEP2(fd_sqrt0, sqrt0.s)
STEP2(fd_nexp01, nexp01.s)
STEP2(fd_mkdadj, mkdadj.s)
STEP2(fd_mksadj, mksadj.s)
STEP2(fd_addexp, addexp.s)
STEP2(fd_addexpm, addexpm.s)
STEP2(fd_recip0, recip0.s)
STEP2(fd_rsqrt0, rsqrt0.s)
STEP3(fd_divn, divn.s)
STEP3(fd_maddn, maddn.s)

	.section .note.GNU-stack, "", @progbits
