/* Loads, stores and jumps for regions.c (de212's region protection). */
#include "sysvec.inc"
#include "tlb_funcs.inc"

/* unsigned rg_load(unsigned v); void rg_store(unsigned v, unsigned x). */
FUNC(rg_load)
	l32i a2, a2, 0; retw
FUNC(rg_store)
	s32i a3, a2, 0; retw

/* void rg_jump(unsigned v): jumps to v, the exception vector told to
 * resume at the return. */
	.section .text.rg_jump, "ax", @progbits
	.p2align 2
.Lrec:		.4byte sys_rec
.Lresume:	.4byte .Lrg_back
	.global rg_jump
rg_jump:
	entry a1, 32
	l32r a8, .Lrec
	l32r a9, .Lresume
	s32i a9, a8, 16
	jx a2
.Lrg_back:
	movi a9, 0
	s32i a9, a8, 16
	retw

	.section .note.GNU-stack, "", @progbits
