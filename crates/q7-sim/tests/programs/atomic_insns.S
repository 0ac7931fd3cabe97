/* S32C1I and ATOMCTL for atomic.c: raw special-register access and one
 * compare-and-store, so the C side never depends on how a compiler lowers
 * atomics. */
	.section .text.at_atomctl, "ax", @progbits
	.global at_atomctl
	.p2align 2
at_atomctl:	/* unsigned at_atomctl(void) */
	entry	a1, 32
	rsr	a2, atomctl
	retw.n

	.section .text.at_set_atomctl, "ax", @progbits
	.global at_set_atomctl
	.p2align 2
at_set_atomctl:	/* void at_set_atomctl(unsigned) */
	entry	a1, 32
	wsr	a2, atomctl
	rsync
	retw.n

	.section .text.at_cas, "ax", @progbits
	.global at_cas
	.p2align 2
at_cas:	/* unsigned at_cas(unsigned *p, unsigned expected, unsigned value): the old word */
	entry	a1, 32
	wsr	a3, scompare1
	s32c1i	a4, a2, 0
	mov	a2, a4
	retw.n

	.section .note.GNU-stack, "", @progbits
