/* Test leaves for `q7 oracle`, with the C ABI of docs/FACTS.md, "Value oracle":
 *   int leaf(void *state, unsigned a, unsigned b, unsigned *result);
 * Built by the tests with `cc -shared -fPIC`. One leaf per behaviour the
 * oracle must tell apart: right, wrong on purpose, crashing on purpose. */
#include <stddef.h>

/* (unsigned)(a < b) over the low 8 bits: the vendor's ltu_1_8_8. */
int leaf_ltu_8(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    *result = (a & 0xffu) < (b & 0xffu);
    return 0;
}

/* A thin wrapper that delegates to the leaf above, like the vendor's fs0ltu. */
int leaf_fs0ltu_8(void *state, unsigned a, unsigned b, unsigned *result) {
    unsigned scratch = 0;
    int status = leaf_ltu_8(state, a, b, &scratch);
    *result = scratch;
    return status;
}

/* Full 32-bit unsigned compare. */
int leaf_ltu_32(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    *result = a < b;
    return 0;
}

/* (a + b) & 0xff. */
int leaf_add_8(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    *result = (a + b) & 0xffu;
    return 0;
}

/* WRONG ON PURPOSE: meant to be unsigned a < b, but compares as signed, so
 * it disagrees whenever exactly one input has bit 31 set. */
int leaf_ltu_wrong(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    *result = (int)a < (int)b;
    return 0;
}

/* CRASHES ON PURPOSE: writes through the state pointer, which the oracle
 * passes as NULL. */
int leaf_segfault(void *state, unsigned a, unsigned b, unsigned *result) {
    *(volatile unsigned *)state = a + b;
    *result = 0;
    return 0;
}

/* Crashes only when b == 0x80 (an input-dependent fault), otherwise a + b. */
int leaf_crash_on_0x80(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    if (b == 0x80u) {
        volatile unsigned *null_pointer = NULL;
        *null_pointer = a;
    }
    *result = a + b;
    return 0;
}

/* Returns a non-zero status for a == 0 (the ABI's int return). */
int leaf_status(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    *result = a | b;
    return a == 0 ? 7 : 0;
}

/* Prints to stdout, which must not disturb the oracle's protocol. */
int printf(const char *, ...);
int leaf_noisy(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    printf("result 0 0 12345\nnoise from the leaf\n");
    *result = a ^ b;
    return 0;
}

/* Never returns: the oracle's per-call alarm must end it. */
int leaf_hang(void *state, unsigned a, unsigned b, unsigned *result) {
    (void)state;
    (void)b;
    for (;;) {
        *(volatile unsigned *)result = a;
    }
}
