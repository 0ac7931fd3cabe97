/* Accesses through de233_fpu's MMU for paging.c: loads, stores, calls
 * and ring-1 code at addresses the program maps. LLVM 22 knows the TLB
 * instructions but not the MMU's special registers: their rsr/wsr are
 * bytes. */
#include "sysvec.inc"
#include "tlb_funcs.inc"

#define WSR(t, sr) .byte ((t) << 4), (sr), 0x13	/* wsr at, sr */
#define PTEVADDR 83


/* unsigned pg_load(unsigned v), pg_load8(v); void pg_store(v, x). */
FUNC(pg_load)
	l32i a2, a2, 0; retw
FUNC(pg_load8)
	l8ui a2, a2, 0; retw
FUNC(pg_store)
	s32i a3, a2, 0; retw

/* unsigned pg_rdtlb0(v), pg_rdtlb1(v), pg_excvaddr(void). */
FUNC(pg_rdtlb0)
	rdtlb0 a2, a2; retw
FUNC(pg_rdtlb1)
	rdtlb1 a2, a2; retw
FUNC(pg_excvaddr)
	rsr a2, excvaddr; retw
/* void pg_set_ptevaddr(unsigned v). */
FUNC(pg_set_ptevaddr)
	WSR(2, PTEVADDR); retw

/* A function on a page of its own, called at addresses mapped to it. */
	.section .text.pg_target, "ax", @progbits
	.p2align 12
	.global pg_target
pg_target:
	entry a1, 32
	movi a2, 0x5a5
	retw

/* unsigned pg_call(unsigned v): calls v; a fetch the MMU refuses resumes
 * after the call, returning 0xfa1. */
	.section .text.pg_call, "ax", @progbits
	.p2align 2
.Lrec:		.4byte sys_rec
.Lcall_back:	.4byte .Lpg_call_back
	.global pg_call
pg_call:
	entry a1, 32
	l32r a4, .Lrec
	l32r a5, .Lcall_back
	s32i a5, a4, 16
	movi a10, 0xfa1
	callx8 a2
.Lpg_call_back:
	movi a5, 0
	s32i a5, a4, 16
	mov a2, a10
	retw

/* unsigned pg_ring1(unsigned v, unsigned target): in ring 1, loads v,
 * then calls target when not 0, and leaves ring 1 by a syscall (the
 * handler returns in ring 0, as it does from any exception). Returns what
 * the load gave (0xbad when it faulted); pg_first[0] and [1] get the
 * exception cause after the load and after the call. */
	.section .text.pg_ring1, "ax", @progbits
	.p2align 2
.Lrec1:		.4byte sys_rec
.Lfirst:	.4byte pg_first
.Lring1_back:	.4byte .Lpg_ring1_back
	.global pg_ring1
pg_ring1:
	entry a1, 32
	l32r a4, .Lrec1
	movi a6, 3
	s32i a6, a4, 8		/* skip a faulting load or syscall */
	l32r a6, .Lfirst
	l32r a9, .Lring1_back
	mov a7, a2
	movi a2, 0xbad
	rsr a5, ps
	movi a8, 0x40
	or a5, a5, a8
	wsr a5, ps
	rsync
	/* Ring 1 from here: no privileged instruction until the syscall. */
	l32i a2, a7, 0		/* may fault: skipped, back in ring 0 */
	l32i a5, a4, 4
	s32i a5, a6, 0
	beqz a3, .Lpg_ring1_back
	s32i a9, a4, 16		/* a faulting fetch resumes below */
	callx8 a3		/* may fault: resumes below, in ring 0 */
.Lpg_ring1_back:
	l32i a5, a4, 4
	s32i a5, a6, 4
	movi a5, 0
	s32i a5, a4, 16
	syscall
	movi a5, 0
	s32i a5, a4, 8
	retw

	.section .bss.pg_first, "aw", @nobits
	.global pg_first
	.p2align 2
pg_first:	.space 8

	.section .note.GNU-stack, "", @progbits
