/* The cache instructions for cache.c, as raw bytes (llvm-mc-22 knows none
 * of them): one 8-byte slot each, base register a3, offset 0, then a jump
 * back. RRI8 rows: op0 = 2, r = 7, t selects; t = 8 (DCE) and 13 (ICE) are
 * RRI4 groups selected by op1 (bits 16..19). */
#include "sysvec.inc"

#define CACHE(t, op1) .p2align 3; .byte ((t) << 4) | 2, 0x73, (op1); j .Lcache_back

	.section .text.cache_table, "ax", @progbits
	.p2align 3
cache_table:
	CACHE(0, 0)	/* dpfr a3, 0 */
	CACHE(1, 0)	/* dpfw a3, 0 */
	CACHE(2, 0)	/* dpfro a3, 0 */
	CACHE(3, 0)	/* dpfwo a3, 0 */
	CACHE(4, 0)	/* dhwb a3, 0 */
	CACHE(5, 0)	/* dhwbi a3, 0 */
	CACHE(6, 0)	/* dhi a3, 0 */
	CACHE(7, 0)	/* dii a3, 0 */
	CACHE(8, 0)	/* dpfl a3, 0 */
	CACHE(8, 2)	/* dhu a3, 0 */
	CACHE(8, 3)	/* diu a3, 0 */
	CACHE(8, 4)	/* diwb a3, 0 */
	CACHE(8, 5)	/* diwbi a3, 0 */
	CACHE(12, 0)	/* ipf a3, 0 */
	CACHE(13, 0)	/* ipfl a3, 0 */
	CACHE(13, 2)	/* ihu a3, 0 */
	CACHE(13, 3)	/* iiu a3, 0 */
	CACHE(14, 0)	/* ihi a3, 0 */
	CACHE(15, 0)	/* iii a3, 0 */

	.section .text.cache_probe, "ax", @progbits
	.p2align 2
.Lrec:		.4byte sys_rec
.Ltable:	.4byte cache_table
	.global cache_probe
cache_probe:	/* unsigned cache_probe(unsigned op, unsigned addr): runs slot op
		 * with a3 = addr; returns exceptions << 8 | the last EXCCAUSE */
	entry	a1, 32
	l32r	a8, .Lrec
	movi	a9, 0
	s32i	a9, a8, 0
	movi	a9, 3
	s32i	a9, a8, 8
	l32r	a10, .Ltable
	addx8	a10, a2, a10
	jx	a10
.Lcache_back:
	movi	a9, 0
	s32i	a9, a8, 8
	l32i	a2, a8, 0
	slli	a2, a2, 8
	l32i	a9, a8, 4
	or	a2, a2, a9
	retw

	.section .note.GNU-stack, "", @progbits
