/* An instruction fetch from an address for fetch.c: jumps there with the
 * exception vector told to resume at .Lfetch_back. */
#include "sysvec.inc"

	.section .text.fetch_probe, "ax", @progbits
	.p2align 2
.Lrec:		.4byte sys_rec
.Lresume:	.4byte .Lfetch_back
	.global fetch_probe
fetch_probe:	/* unsigned fetch_probe(unsigned addr): jumps to addr; returns
		 * exceptions << 8 | the last EXCCAUSE (EPC1 and EXCVADDR stay
		 * in sys_rec) */
	entry	a1, 32
	l32r	a8, .Lrec
	movi	a9, 0
	s32i	a9, a8, 0
	l32r	a9, .Lresume
	s32i	a9, a8, 16
	jx	a2
.Lfetch_back:
	movi	a9, 0
	s32i	a9, a8, 16
	l32i	a2, a8, 0
	slli	a2, a2, 8
	l32i	a9, a8, 4
	or	a2, a2, a9
	retw

	.section .note.GNU-stack, "", @progbits
