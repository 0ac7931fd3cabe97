// Unary element-wise operations (ATen/Functions.h).
#include <math.h>
#include "elementwise_kernels.h"

namespace at {
namespace {
using q7::Kind;

enum class Policy {
  kSameType,  // integers stay integers (abs, neg, ...)
  kFloating,  // integers compute and return in float (exp, log, ...)
  kIntegral,  // integers and bool only (bitwise_not)
};

Kind compute_kind(ScalarType in, Policy policy, const char *name) {
  if (policy == Policy::kIntegral && c10::isFloatingType(in))
    q7_fail(Q7_STATUS_ABORT, "%s: needs an integer or bool tensor, got %s", name, c10::toString(in));
  Kind k = q7::kind_of(in);
  if (policy == Policy::kFloating && (k == Kind::I32 || k == Kind::I64)) return Kind::F32;
  return k;
}

ScalarType result_dtype(ScalarType in, Policy policy) {
  return policy == Policy::kFloating && !c10::isFloatingType(in) ? ScalarType::Float : in;
}

template <class Op>
Tensor &unary_out(Tensor &result, const Tensor &self, Policy policy, const char *name) {
  q7::check_same_shape(result, self, name);
  Kind kind = compute_kind(self.scalar_type(), policy, name);
  q7::unary_kernel(kind, result.q7_desc(), self.q7_desc(), Op());
  return result;
}

template <class Op>
Tensor unary(const Tensor &self, Policy policy, const char *name) {
  q7::check_defined(self, name);
  Tensor result = q7::allocate(self.sizes(), result_dtype(self.scalar_type(), policy));
  unary_out<Op>(result, self, policy, name);
  return result;
}

// Math functions: float and double versions; integer values never reach them
// (the kFloating policy converts), the integer overloads only satisfy the
// kernel templates.
#define Q7_MATH_OP(Name, float_expr, double_expr)                       \
  struct Name {                                                         \
    float operator()(float x) const { return float_expr; }              \
    double operator()(double x) const { return double_expr; }           \
    int32_t operator()(int32_t x) const { return (int32_t)(*this)((float)x); } \
    int64_t operator()(int64_t x) const { return (int64_t)(*this)((double)x); } \
  };

Q7_MATH_OP(ExpOp, ::expf(x), ::exp(x))
Q7_MATH_OP(Exp2Op, ::exp2f(x), ::exp2(x))
Q7_MATH_OP(Expm1Op, ::expm1f(x), ::expm1(x))
Q7_MATH_OP(LogOp, ::logf(x), ::log(x))
Q7_MATH_OP(Log2Op, ::log2f(x), ::log2(x))
Q7_MATH_OP(Log10Op, ::log10f(x), ::log10(x))
Q7_MATH_OP(Log1pOp, ::log1pf(x), ::log1p(x))
Q7_MATH_OP(SqrtOp, ::sqrtf(x), ::sqrt(x))
Q7_MATH_OP(RsqrtOp, 1.0f / ::sqrtf(x), 1.0 / ::sqrt(x))
Q7_MATH_OP(ReciprocalOp, 1.0f / x, 1.0 / x)
Q7_MATH_OP(SigmoidOp, 1.0f / (1.0f + ::expf(-x)), 1.0 / (1.0 + ::exp(-x)))
Q7_MATH_OP(TanhOp, ::tanhf(x), ::tanh(x))
Q7_MATH_OP(SinOp, ::sinf(x), ::sin(x))
Q7_MATH_OP(CosOp, ::cosf(x), ::cos(x))
Q7_MATH_OP(TanOp, ::tanf(x), ::tan(x))
Q7_MATH_OP(AsinOp, ::asinf(x), ::asin(x))
Q7_MATH_OP(AcosOp, ::acosf(x), ::acos(x))
Q7_MATH_OP(AtanOp, ::atanf(x), ::atan(x))
Q7_MATH_OP(SinhOp, ::sinhf(x), ::sinh(x))
Q7_MATH_OP(CoshOp, ::coshf(x), ::cosh(x))
Q7_MATH_OP(ErfOp, ::erff(x), (double)::erff((float)x))  // no double erf in the SDK
#undef Q7_MATH_OP

struct AbsOp {
  float operator()(float x) const { return ::fabsf(x); }
  double operator()(double x) const { return ::fabs(x); }
  int32_t operator()(int32_t x) const { return x < 0 ? q7::wrap_sub(0, x) : x; }
  int64_t operator()(int64_t x) const { return x < 0 ? q7::wrap_sub((int64_t)0, x) : x; }
};
struct NegOp {
  float operator()(float x) const { return -x; }
  double operator()(double x) const { return -x; }
  int32_t operator()(int32_t x) const { return q7::wrap_sub(0, x); }
  int64_t operator()(int64_t x) const { return q7::wrap_sub((int64_t)0, x); }
};
struct ReluOp {  // NaN stays NaN, as in PyTorch
  template <class V>
  V operator()(V x) const {
    return x > V(0) || x != x ? x : V(0);
  }
};
struct SignOp {
  template <class V>
  V operator()(V x) const {
    return x > V(0) ? V(1) : x < V(0) ? V(-1) : x;
  }
};
struct SquareOp {
  template <class V>
  V operator()(V x) const {
    return q7::wrap_mul(x, x);
  }
};
// Rounding functions are the identity on integers.
#define Q7_ROUNDING_OP(Name, ffun, dfun)                       \
  struct Name {                                                \
    float operator()(float x) const { return ffun(x); }        \
    double operator()(double x) const { return dfun(x); }      \
    int32_t operator()(int32_t x) const { return x; }          \
    int64_t operator()(int64_t x) const { return x; }          \
  };
Q7_ROUNDING_OP(CeilOp, ::ceilf, ::ceil)
Q7_ROUNDING_OP(FloorOp, ::floorf, ::floor)
Q7_ROUNDING_OP(RoundOp, ::nearbyintf, ::nearbyint)  // torch.round: half to even
Q7_ROUNDING_OP(TruncOp, ::truncf, ::trunc)
#undef Q7_ROUNDING_OP
struct BitwiseNotOp {
  int32_t operator()(int32_t x) const { return ~x; }
  int64_t operator()(int64_t x) const { return ~x; }
  float operator()(float x) const { return x; }
  double operator()(double x) const { return x; }
};

}  // namespace

#define Q7_DEFINE_UNARY(name, kind, policy)                                              \
  Tensor &name##_out(Tensor &result, const Tensor &self) {                               \
    return unary_out<kind##Op>(result, self, Policy::k##policy, #name);                    \
  }                                                                                      \
  Tensor name(const Tensor &self) { return unary<kind##Op>(self, Policy::k##policy, #name); }
Q7_UNARY_OPS(Q7_DEFINE_UNARY)
#undef Q7_DEFINE_UNARY

Tensor operator-(const Tensor &self) { return neg(self); }

#define Q7_UNARY_MEMBER(name)                                 \
  Tensor Tensor::name() const { return at::name(*this); }     \
  Tensor &Tensor::name##_() const {                           \
    Tensor &self = const_cast<Tensor &>(*this);               \
    return at::name##_out(self, self);                        \
  }
Q7_UNARY_METHODS(Q7_UNARY_MEMBER)
#undef Q7_UNARY_MEMBER

}  // namespace at
