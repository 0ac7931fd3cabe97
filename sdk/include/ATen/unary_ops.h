// The unary element-wise ops, listed once: Functions.h declares them,
// Tensor.h declares the methods, src/torch/elementwise_unary.cpp defines both.
#ifndef Q7_ATEN_UNARY_OPS_H
#define Q7_ATEN_UNARY_OPS_H

// X(name, kind, policy): at::name and at::name_out, computed by the functor
// kind##Op under Policy::k##policy (SameType, Floating: integers promote to
// float, Integral: integers only).
#define Q7_UNARY_OPS(X)          \
  X(abs, Abs, SameType)          \
  X(neg, Neg, SameType)          \
  X(relu, Relu, SameType)        \
  X(sign, Sign, SameType)        \
  X(square, Square, SameType)    \
  X(ceil, Ceil, SameType)        \
  X(floor, Floor, SameType)      \
  X(round, Round, SameType)      \
  X(trunc, Trunc, SameType)      \
  X(exp, Exp, Floating)          \
  X(exp2, Exp2, Floating)        \
  X(expm1, Expm1, Floating)      \
  X(log, Log, Floating)          \
  X(log2, Log2, Floating)        \
  X(log10, Log10, Floating)      \
  X(log1p, Log1p, Floating)      \
  X(sqrt, Sqrt, Floating)        \
  X(rsqrt, Rsqrt, Floating)      \
  X(reciprocal, Reciprocal, Floating) \
  X(sigmoid, Sigmoid, Floating)  \
  X(tanh, Tanh, Floating)        \
  X(sin, Sin, Floating)          \
  X(cos, Cos, Floating)          \
  X(tan, Tan, Floating)          \
  X(asin, Asin, Floating)        \
  X(acos, Acos, Floating)        \
  X(atan, Atan, Floating)        \
  X(sinh, Sinh, Floating)        \
  X(cosh, Cosh, Floating)        \
  X(erf, Erf, Floating)          \
  X(bitwise_not, BitwiseNot, Integral)

// X(name): the ops that are also Tensor methods (t.name() and t.name_()).
#define Q7_UNARY_METHODS(X) \
  X(abs)                    \
  X(neg)                    \
  X(relu)                   \
  X(exp)                    \
  X(log)                    \
  X(sqrt)                   \
  X(rsqrt)                  \
  X(sigmoid)                \
  X(tanh)                   \
  X(sin)                    \
  X(cos)                    \
  X(ceil)                   \
  X(floor)                  \
  X(round)                  \
  X(reciprocal)

#endif
