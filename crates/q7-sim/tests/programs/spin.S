/* A compute-bound kernel for speed measurements: a zero-overhead loop of six
 * multiply/xor/add instructions, SPIN_ITERATIONS times (default one million,
 * i.e. 6 million loop instructions; the benchmark asks for more). main
 * returns a checksum byte. */
#ifndef SPIN_ITERATIONS
#define SPIN_ITERATIONS 1000000
#endif
	.section .literal.main, "ax", @progbits
	.p2align 2
.Literations:	.4byte SPIN_ITERATIONS
.Lseed:		.4byte 0x9e3779b9

	.section .text.main, "ax", @progbits
	.global main
	.p2align 2
main:
	entry	a1, 32
	l32r	a2, .Literations
	movi	a3, 1
	l32r	a4, .Lseed
	movi	a5, 7
	loop	a2, .Lend
	mull	a3, a3, a4
	xor	a3, a3, a5
	addi	a5, a5, 1
	mull	a6, a3, a3
	xor	a4, a4, a6
	addi	a4, a4, 3
.Lend:
	extui	a2, a3, 0, 8
	retw.n

	.section .note.GNU-stack, "", @progbits
