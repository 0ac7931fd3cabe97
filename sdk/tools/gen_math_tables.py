#!/usr/bin/env python3
"""Generates sdk/src/math/math_tables.h: the bits of 2/pi for Payne-Hanek
argument reduction and the polynomial coefficients of the math library.

Coefficients are near-minimax Chebyshev fits (mpmath.chebyfit) of the smooth
remainder of each function on the interval its algorithm reduces to; the
comment next to each set gives the fitted function, interval, degree and the
fit's own error bound. Run it from anywhere:  python3 sdk/tools/gen_math_tables.py
"""
import os
import mpmath as mp

# Enough precision that the removable singularities (0/0 at the origin) and the
# 1280 bits of 2/pi both come out exact.
mp.mp.prec = 2400

def c_float(x):
    return mp.nstr(x, 12, min_fixed=-2, max_fixed=2, strip_zeros=False).replace('e', 'e') + 'f'

def c_double(x):
    return repr(float(x)) if abs(float(x)) != 0 else '0.0'

def fit(f, a, b, degree):
    coeffs = mp.chebyfit(f, [a, b], degree + 1)  # highest degree first
    # Maximum error on a fine grid (chebyfit's own estimate can sample points
    # so close to a removable singularity that the reference itself cancels).
    err = max(abs(mp.polyval(coeffs, x) - f(x)) for x in mp.linspace(a, b, 997))
    return coeffs, err

out = []
def emit_poly(name, f, a, b, degree, kind, what):
    coeffs, err = fit(f, mp.mpf(a), mp.mpf(b), degree)
    if kind == 'float':
        vals = [mp.mpf(float(mp.nstr(c, 9))) for c in coeffs]
        text = ', '.join('%.9ef' % float(c) for c in coeffs)
        ctype = 'float'
    else:
        text = ', '.join('%.17e' % float(c) for c in coeffs)
        ctype = 'double'
    out.append('/* %s on [%s, %s], degree %d, fit error %s (highest degree first) */'
               % (what, mp.nstr(mp.mpf(a), 6), mp.nstr(mp.mpf(b), 6), degree, mp.nstr(err, 3)))
    out.append('static const %s %s[%d] = {%s};' % (ctype, name, len(coeffs), text))
    out.append('')

def safe(f, x0, limit):
    """f(x), with the removable singularity at x0 replaced by the limit."""
    return lambda x: limit if x == x0 else f(x)

# --- 2/pi for Payne-Hanek: 1280 bits after the binary point, 32 per word.
two_over_pi = 2 / mp.pi
words = []
frac = two_over_pi
for _ in range(40):
    frac *= 2**32
    w = int(mp.floor(frac))
    words.append(w)
    frac -= w
out.append('/* The first 1280 bits of 2/pi after the binary point (2/pi < 1), 32 per word. */')
out.append('static const uint32_t two_over_pi_bits[40] = {')
for i in range(0, 40, 6):
    out.append('    ' + ', '.join('0x%08xu' % w for w in words[i:i + 6]) + ',')
out.append('};')
out.append('')
# pi/2 as a 64-bit fixed-point fraction of 2 (pi/2 * 2^62) for converting reduced fractions.
pio2_q62 = int(mp.floor(mp.pi / 2 * 2**62 + mp.mpf(1) / 2))
out.append('/* round(pi/2 * 2^62) */')
out.append('#define PIO2_Q62 0x%016xull' % pio2_q62)
out.append('')

ln2 = mp.log(2)
half_ln2 = ln2 / 2
# exp: e^r = 1 + r + r^2 * P(r)
expP = safe(lambda r: (mp.exp(r) - 1 - r) / r**2, 0, mp.mpf(1) / 2)
emit_poly('expf_poly', expP, -half_ln2, half_ln2, 5, 'float', '(e^r - 1 - r) / r^2')
emit_poly('exp_poly', expP, -half_ln2, half_ln2, 10, 'double', '(e^r - 1 - r) / r^2')
# exp2: 2^f = 1 + f * Q(f)
exp2Q = safe(lambda f: (mp.power(2, f) - 1) / f, 0, ln2)
emit_poly('exp2f_poly', exp2Q, -0.5, 0.5, 6, 'float', '(2^f - 1) / f')
# log: log(1+f) = f - hfsq + s*(hfsq + z*L(z)), s = f/(2+f), z = s^2
smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1)
logL = safe(lambda z: (2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) - 2) / z, 0, mp.mpf(2) / 3)
emit_poly('logf_poly', logL, 0, smax**2, 3, 'float', '(2 atanh(s)/s - 2) / s^2 as a function of z = s^2')
emit_poly('log_poly', logL, 0, smax**2, 8, 'double', '(2 atanh(s)/s - 2) / s^2 as a function of z = s^2')
# sin/cos on |r| <= pi/4, w = r^2
w_max = (mp.pi / 4)**2
sinS = safe(lambda w: (mp.sin(mp.sqrt(w)) - mp.sqrt(w)) / mp.sqrt(w)**3, 0, -mp.mpf(1) / 6)
cosC = safe(lambda w: (mp.cos(mp.sqrt(w)) - 1 + w / 2) / w**2, 0, mp.mpf(1) / 24)
emit_poly('sinf_poly', sinS, 0, w_max, 3, 'float', '(sin r - r) / r^3 as a function of w = r^2')
emit_poly('cosf_poly', cosC, 0, w_max, 3, 'float', '(cos r - 1 + r^2/2) / r^4 as a function of w = r^2')
emit_poly('sin_poly', sinS, 0, w_max, 7, 'double', '(sin r - r) / r^3 as a function of w = r^2')
emit_poly('cos_poly', cosC, 0, w_max, 7, 'double', '(cos r - 1 + r^2/2) / r^4 as a function of w = r^2')
# asin on |x| <= 1/2, z = x^2
asinP = safe(lambda z: (mp.asin(mp.sqrt(z)) - mp.sqrt(z)) / mp.sqrt(z)**3, 0, mp.mpf(1) / 6)
emit_poly('asinf_poly', asinP, 0, 0.25, 5, 'float', '(asin x - x) / x^3 as a function of z = x^2')
emit_poly('asin_poly', asinP, 0, 0.25, 13, 'double', '(asin x - x) / x^3 as a function of z = x^2')
# atan on |t| <= 7/16, z = t^2
atanP = safe(lambda z: (mp.sqrt(z) - mp.atan(mp.sqrt(z))) / mp.sqrt(z)**3, 0, mp.mpf(1) / 3)
emit_poly('atanf_poly', atanP, 0, (mp.mpf(7) / 16)**2, 5, 'float', '(t - atan t) / t^3 as a function of z = t^2')
emit_poly('atan_poly', atanP, 0, (mp.mpf(7) / 16)**2, 11, 'double', '(t - atan t) / t^3 as a function of z = t^2')
# erf near 0: erf(x) = x * E(x^2)
erfE = safe(lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z), 0, 2 / mp.sqrt(mp.pi))
emit_poly('erff_small_poly', lambda z: erfE(z) - 1, 0, mp.mpf(0.84375)**2, 7, 'float',
          'erf(x) / x - 1 as a function of z = x^2')
# erf around 1: erf(1 + s) - erf(1)
erx = mp.erf(1)
out.append('#define ERF1_F %.9ef' % float(erx))
out.append('')
emit_poly('erff_mid_poly', lambda s: mp.erf(1 + s) - erx, -0.15625, 0.25, 8, 'float', 'erf(1 + s) - erf(1)')
# erfc tail: erfc(x) = exp(-x^2 + T(u)) / x, u = 1/x^2
tail = lambda u: mp.log(mp.erfc(1 / mp.sqrt(u)) / mp.sqrt(u) * mp.exp(1 / u))
emit_poly('erfcf_tail_poly_a', tail, 1 / mp.mpf(2.857)**2, 1 / mp.mpf(1.25)**2, 10, 'float',
          'log(x erfc(x) e^(x^2)) as a function of u = 1/x^2, x in [1.25, 2.857]')
emit_poly('erfcf_tail_poly_b', tail, 1 / mp.mpf(10.1)**2, 1 / mp.mpf(2.857)**2, 8, 'float',
          'log(x erfc(x) e^(x^2)) as a function of u = 1/x^2, x in [2.857, 10.1]')

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, '..', 'src', 'math', 'math_tables.h')
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, 'w') as fh:
    fh.write('/* Generated by sdk/tools/gen_math_tables.py; do not edit. */\n')
    fh.write('#ifndef Q7_SRC_MATH_TABLES_H\n#define Q7_SRC_MATH_TABLES_H\n\n#include <stdint.h>\n\n')
    fh.write('\n'.join(out))
    fh.write('\n#endif\n')
print('wrote', os.path.normpath(path))
