/* The TLB instructions for tlb.c: every read and probe of one address
 * into out[0..6], writes and invalidations of one entry. */
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
	.section .text.tlb_wd, "ax", @progbits
	.global tlb_wd
	.p2align 2
tlb_wd:	/* void tlb_wd(unsigned vaddr, unsigned v): wdtlb */
	entry	a1, 32
	wdtlb	a3, a2
	dsync
	retw
	.section .text.tlb_wi, "ax", @progbits
	.global tlb_wi
	.p2align 2
tlb_wi:	/* void tlb_wi(unsigned vaddr, unsigned v): witlb */
	entry	a1, 32
	witlb	a3, a2
	isync
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
