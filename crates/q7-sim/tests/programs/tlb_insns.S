/* The TLB instructions for tlb.c: every read and probe of one address
 * into out[0..6], invalidations of one entry (the writes are
 * tlb_funcs.inc's). */
#include "tlb_funcs.inc"

	.section .text.tlb_read, "ax", @progbits
	.global tlb_read
	.p2align 2
tlb_read:	/* void tlb_read(unsigned vaddr, unsigned out[6]): ritlb0, ritlb1,
		 * rdtlb0, rdtlb1, pitlb, pdtlb */
	entry	a1, 32
	ritlb0	a4, a2
	s32i	a4, a3, 0
	ritlb1	a4, a2
	s32i	a4, a3, 4
	rdtlb0	a4, a2
	s32i	a4, a3, 8
	rdtlb1	a4, a2
	s32i	a4, a3, 12
	pitlb	a4, a2
	s32i	a4, a3, 16
	pdtlb	a4, a2
	s32i	a4, a3, 20
	retw
	.section .text.tlb_inv, "ax", @progbits
	.global tlb_inv
	.p2align 2
tlb_inv:	/* void tlb_inv(unsigned vaddr): idtlb, iitlb */
	entry	a1, 32
	idtlb	a2
	iitlb	a2
	isync
	retw
	.section .note.GNU-stack, "", @progbits
