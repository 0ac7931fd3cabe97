/* Simulator services through the Xtensa SIMCALL instruction (sdk/ABI.md
 * "Services"): a2 = call number, a3..a5 = arguments, result in a2.
 * LLVM's Xtensa assembler has no SIMCALL mnemonic, so it is spelled as its
 * encoding 0x005100 (RRR: op0 = 0, op1 = 0, op2 = 0, r = 5, s = 1, t = 0). */
#define SIMCALL .byte 0x00, 0x51, 0x00

/* int q7_simcall(int call, int arg0, int arg1, int arg2): the windowed entry
 * leaves the four arguments exactly in a2..a5, where SIMCALL wants them. */
	.section .text.q7_simcall, "ax", @progbits
	.global q7_simcall
	.type q7_simcall, @function
	.p2align 2
q7_simcall:
	entry	a1, 32
	SIMCALL
	retw.n
	.size q7_simcall, . - q7_simcall

	.section .note.GNU-stack, "", @progbits
