/* int t_simcall(int call, int a, int b, int c): a2..a5 are the simcall
 * registers already after the windowed entry. */
#define SIMCALL .byte 0x00, 0x51, 0x00
	.section .text.t_simcall, "ax", @progbits
	.global t_simcall
	.p2align 2
t_simcall:
	entry	a1, 32
	SIMCALL
	retw.n
	.section .note.GNU-stack, "", @progbits
