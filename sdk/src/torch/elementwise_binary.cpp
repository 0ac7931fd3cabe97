// Binary element-wise operations, clamp and where (ATen/Functions.h). Either
// operand may be a Scalar; tensors must have the same shape (no broadcasting).
#include <math.h>
#include "elementwise_kernels.h"

namespace at {
namespace {
using q7::Kind;

enum class Policy {
  kArithmetic,  // computes in the promoted type (add, mul, maximum, ...)
  kFloating,    // integers compute and return in float (div, atan2)
  kIntegral,    // integers and bool only (bitwise_*)
  kCompare,     // computes in the promoted type, returns kBool
};

// A tensor or a scalar operand.
struct Operand {
  const Tensor *tensor;
  const Scalar *scalar;
  Operand(const Tensor &t) : tensor(&t), scalar(nullptr) {}
  Operand(const Scalar &s) : tensor(nullptr), scalar(&s) {}
};

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  bool fa = c10::isFloatingType(a), fb = c10::isFloatingType(b);
  if (fa != fb) return fa ? a : b;
  if (fa) return a == ScalarType::Double || b == ScalarType::Double ? ScalarType::Double : ScalarType::Float;
  if (a == ScalarType::Long || b == ScalarType::Long) return ScalarType::Long;
  if (a == ScalarType::Int || b == ScalarType::Int) return ScalarType::Int;
  return ScalarType::Short;  // Short with anything smaller, or Byte with Char
}

// PyTorch's rule for a tensor with a scalar: the scalar only matters when it
// is of a higher category (bool < integer < floating).
ScalarType promote_with_scalar(ScalarType t, const Scalar &s) {
  if (s.isFloatingPoint() && !c10::isFloatingType(t)) return ScalarType::Float;
  if (s.isIntegral(false) && t == ScalarType::Bool) return ScalarType::Long;
  return t;
}

ScalarType common_type(Operand a, Operand b) {
  if (a.tensor && b.tensor) return promote_types(a.tensor->scalar_type(), b.tensor->scalar_type());
  if (a.tensor) return promote_with_scalar(a.tensor->scalar_type(), *b.scalar);
  return promote_with_scalar(b.tensor->scalar_type(), *a.scalar);
}

Kind compute_kind(ScalarType common, Policy policy, const char *name) {
  if (policy == Policy::kIntegral && c10::isFloatingType(common))
    q7_fail(Q7_STATUS_ABORT, "%s: needs integer or bool operands, got %s", name, c10::toString(common));
  Kind k = q7::kind_of(common);
  if (policy == Policy::kFloating && (k == Kind::I32 || k == Kind::I64)) return Kind::F32;
  return k;
}

ScalarType result_dtype(ScalarType common, Policy policy) {
  if (policy == Policy::kCompare) return ScalarType::Bool;
  if (policy == Policy::kFloating && !c10::isFloatingType(common)) return ScalarType::Float;
  return common;
}

const Tensor &shape_source(Operand a, Operand b) { return a.tensor ? *a.tensor : *b.tensor; }

template <class Op>
Tensor &binary_out(Tensor &result, Operand a, Operand b, Policy policy, const char *name, const Op &op) {
  const Tensor &shape = shape_source(a, b);
  q7::check_same_shape(result, shape, name);
  if (a.tensor && b.tensor) q7::check_same_shape(*a.tensor, *b.tensor, name);
  Kind kind = compute_kind(common_type(a, b), policy, name);
  const q7_tensor_desc &out = *result.q7_desc();
  if (a.tensor && b.tensor) {
    q7::binary_kernel(kind, &out, a.tensor->q7_desc(), b.tensor->q7_desc(), op);
  } else if (a.tensor) {
    q7::ScalarOperand s(*b.scalar, out, kind);
    q7::binary_kernel(kind, &out, a.tensor->q7_desc(), &s.desc, op);
  } else {
    q7::ScalarOperand s(*a.scalar, out, kind);
    q7::binary_kernel(kind, &out, &s.desc, b.tensor->q7_desc(), op);
  }
  return result;
}

template <class Op>
Tensor binary(Operand a, Operand b, Policy policy, const char *name, const Op &op) {
  const Tensor &shape = shape_source(a, b);
  q7::check_defined(shape, name);
  Tensor result = q7::allocate(shape.sizes(), result_dtype(common_type(a, b), policy));
  binary_out(result, a, b, policy, name, op);
  return result;
}

// a + alpha * b (sub passes -alpha).
struct AddOp {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  explicit AddOp(const Scalar &alpha)
      : i32(alpha.toInt()), i64(alpha.toLong()), f32(alpha.toFloat()), f64(alpha.toDouble()) {}
  int32_t operator()(int32_t a, int32_t b) const { return q7::wrap_add(a, q7::wrap_mul(i32, b)); }
  int64_t operator()(int64_t a, int64_t b) const { return q7::wrap_add(a, q7::wrap_mul(i64, b)); }
  float operator()(float a, float b) const { return f32 == 1.0f ? a + b : a + f32 * b; }
  double operator()(double a, double b) const { return f64 == 1.0 ? a + b : a + f64 * b; }
};
struct MulOp {
  template <class V>
  V operator()(V a, V b) const {
    return q7::wrap_mul(a, b);
  }
};
struct DivOp {
  float operator()(float a, float b) const { return a / b; }
  double operator()(double a, double b) const { return a / b; }
  int32_t operator()(int32_t a, int32_t b) const { return b ? a / b : 0; }
  int64_t operator()(int64_t a, int64_t b) const { return b ? a / b : 0; }
};
template <class I>
I integer_pow(I base, I exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == -1 ? (exponent & 1 ? -1 : 1) : 0;
  I result = 1;
  while (exponent) {
    if (exponent & 1) result = q7::wrap_mul(result, base);
    base = q7::wrap_mul(base, base);
    exponent >>= 1;
  }
  return result;
}
struct PowOp {
  float operator()(float a, float b) const { return ::powf(a, b); }
  double operator()(double a, double b) const { return ::pow(a, b); }
  int32_t operator()(int32_t a, int32_t b) const { return integer_pow(a, b); }
  int64_t operator()(int64_t a, int64_t b) const { return integer_pow(a, b); }
};
// maximum/minimum propagate NaN, as in PyTorch.
struct MaximumOp {
  template <class V>
  V operator()(V a, V b) const {
    return a != a ? a : b != b ? b : a > b ? a : b;
  }
};
struct MinimumOp {
  template <class V>
  V operator()(V a, V b) const {
    return a != a ? a : b != b ? b : a < b ? a : b;
  }
};
struct Atan2Op {
  float operator()(float a, float b) const { return ::atan2f(a, b); }
  double operator()(double a, double b) const { return ::atan2(a, b); }
  int32_t operator()(int32_t a, int32_t b) const { return (int32_t)::atan2f((float)a, (float)b); }
  int64_t operator()(int64_t a, int64_t b) const { return (int64_t)::atan2((double)a, (double)b); }
};
// fmod: the sign of the dividend (C fmod); remainder: the sign of the divisor
// (Python %). Integer division by zero gives 0.
struct FmodOp {
  float operator()(float a, float b) const { return ::fmodf(a, b); }
  double operator()(double a, double b) const { return ::fmod(a, b); }
  int32_t operator()(int32_t a, int32_t b) const { return b ? (b == -1 ? 0 : a % b) : 0; }
  int64_t operator()(int64_t a, int64_t b) const { return b ? (b == -1 ? 0 : a % b) : 0; }
};
struct RemainderOp {
  template <class V>
  V operator()(V a, V b) const {
    V r = FmodOp()(a, b);
    return r != V(0) && ((r < V(0)) != (b < V(0))) ? r + b : r;
  }
};
#define Q7_INTEGER_OP(Name, op)                                                 \
  struct Name {                                                                 \
    int32_t operator()(int32_t a, int32_t b) const { return a op b; }           \
    int64_t operator()(int64_t a, int64_t b) const { return a op b; }           \
    float operator()(float a, float) const { return a; }                        \
    double operator()(double a, double) const { return a; }                     \
  };
Q7_INTEGER_OP(BitwiseAndOp, &)
Q7_INTEGER_OP(BitwiseOrOp, |)
Q7_INTEGER_OP(BitwiseXorOp, ^)
#undef Q7_INTEGER_OP
#define Q7_COMPARE_OP(Name, op)         \
  struct Name {                         \
    template <class V>                  \
    V operator()(V a, V b) const {      \
      return q7::from_bool<V>(a op b);  \
    }                                   \
  };
Q7_COMPARE_OP(EqOp, ==)
Q7_COMPARE_OP(NeOp, !=)
Q7_COMPARE_OP(LtOp, <)
Q7_COMPARE_OP(LeOp, <=)
Q7_COMPARE_OP(GtOp, >)
Q7_COMPARE_OP(GeOp, >=)
#undef Q7_COMPARE_OP

}  // namespace

Tensor &add_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha) {
  return binary_out(result, self, other, Policy::kArithmetic, "add", AddOp(alpha));
}
Tensor &add_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha) {
  return binary_out(result, self, other, Policy::kArithmetic, "add", AddOp(alpha));
}
Tensor add(const Tensor &self, const Tensor &other, const Scalar &alpha) {
  return binary(self, other, Policy::kArithmetic, "add", AddOp(alpha));
}
Tensor add(const Tensor &self, const Scalar &other, const Scalar &alpha) {
  return binary(self, other, Policy::kArithmetic, "add", AddOp(alpha));
}
Tensor &sub_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha) {
  return binary_out(result, self, other, Policy::kArithmetic, "sub", AddOp(-alpha));
}
Tensor &sub_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha) {
  return binary_out(result, self, other, Policy::kArithmetic, "sub", AddOp(-alpha));
}
Tensor sub(const Tensor &self, const Tensor &other, const Scalar &alpha) {
  return binary(self, other, Policy::kArithmetic, "sub", AddOp(-alpha));
}
Tensor sub(const Tensor &self, const Scalar &other, const Scalar &alpha) {
  return binary(self, other, Policy::kArithmetic, "sub", AddOp(-alpha));
}

#define Q7_DEFINE_BINARY(name, Op, policy)                                                     \
  Tensor &name##_out(Tensor &result, const Tensor &self, const Tensor &other) {                \
    return binary_out(result, self, other, policy, #name, Op());                              \
  }                                                                                           \
  Tensor &name##_out(Tensor &result, const Tensor &self, const Scalar &other) {                \
    return binary_out(result, self, other, policy, #name, Op());                              \
  }                                                                                           \
  Tensor &name##_out(Tensor &result, const Scalar &self, const Tensor &other) {                \
    return binary_out(result, self, other, policy, #name, Op());                              \
  }                                                                                           \
  Tensor name(const Tensor &self, const Tensor &other) { return binary(self, other, policy, #name, Op()); } \
  Tensor name(const Tensor &self, const Scalar &other) { return binary(self, other, policy, #name, Op()); } \
  Tensor name(const Scalar &self, const Tensor &other) { return binary(self, other, policy, #name, Op()); }

Q7_DEFINE_BINARY(mul, MulOp, Policy::kArithmetic)
Q7_DEFINE_BINARY(div, DivOp, Policy::kFloating)
Q7_DEFINE_BINARY(pow, PowOp, Policy::kArithmetic)
Q7_DEFINE_BINARY(maximum, MaximumOp, Policy::kArithmetic)
Q7_DEFINE_BINARY(minimum, MinimumOp, Policy::kArithmetic)
Q7_DEFINE_BINARY(atan2, Atan2Op, Policy::kFloating)
Q7_DEFINE_BINARY(fmod, FmodOp, Policy::kArithmetic)
Q7_DEFINE_BINARY(remainder, RemainderOp, Policy::kArithmetic)
Q7_DEFINE_BINARY(bitwise_and, BitwiseAndOp, Policy::kIntegral)
Q7_DEFINE_BINARY(bitwise_or, BitwiseOrOp, Policy::kIntegral)
Q7_DEFINE_BINARY(bitwise_xor, BitwiseXorOp, Policy::kIntegral)
Q7_DEFINE_BINARY(eq, EqOp, Policy::kCompare)
Q7_DEFINE_BINARY(ne, NeOp, Policy::kCompare)
Q7_DEFINE_BINARY(lt, LtOp, Policy::kCompare)
Q7_DEFINE_BINARY(le, LeOp, Policy::kCompare)
Q7_DEFINE_BINARY(gt, GtOp, Policy::kCompare)
Q7_DEFINE_BINARY(ge, GeOp, Policy::kCompare)
#undef Q7_DEFINE_BINARY

ScalarType result_type(const Tensor &a, const Tensor &b) { return common_type(a, b); }
ScalarType result_type(const Tensor &a, const Scalar &b) { return common_type(a, b); }

// --- clamp ---
namespace {
struct ClampOp {
  AddOp lo, hi;  // reuse AddOp's per-kind conversion of a Scalar
  bool has_lo, has_hi;
  ClampOp(const Scalar &min, const Scalar &max, bool use_min, bool use_max)
      : lo(min), hi(max), has_lo(use_min), has_hi(use_max) {}
  template <class V>
  V clamp(V x, V low, V high) const {
    if (x != x) return x;
    if (has_lo && x < low) x = low;
    if (has_hi && x > high) x = high;
    return x;
  }
  int32_t operator()(int32_t x) const { return clamp(x, lo.i32, hi.i32); }
  int64_t operator()(int64_t x) const { return clamp(x, lo.i64, hi.i64); }
  float operator()(float x) const { return clamp(x, lo.f32, hi.f32); }
  double operator()(double x) const { return clamp(x, lo.f64, hi.f64); }
};

Tensor &clamp_impl(Tensor &result, const Tensor &self, const ClampOp &op, ScalarType common) {
  q7::check_same_shape(result, self, "clamp");
  q7::unary_kernel(q7::kind_of(common), result.q7_desc(), self.q7_desc(), op);
  return result;
}
ScalarType clamp_type(const Tensor &self, const Scalar &a, const Scalar &b) {
  return promote_with_scalar(promote_with_scalar(self.scalar_type(), a), b);
}
}  // namespace

Tensor &clamp_out(Tensor &result, const Tensor &self, const Scalar &min, const Scalar &max) {
  return clamp_impl(result, self, ClampOp(min, max, true, true), clamp_type(self, min, max));
}
Tensor clamp(const Tensor &self, const Scalar &min, const Scalar &max) {
  q7::check_defined(self, "clamp");
  Tensor result = q7::allocate(self.sizes(), clamp_type(self, min, max));
  return clamp_out(result, self, min, max);
}
Tensor &clamp_min_out(Tensor &result, const Tensor &self, const Scalar &min) {
  return clamp_impl(result, self, ClampOp(min, min, true, false), clamp_type(self, min, min));
}
Tensor clamp_min(const Tensor &self, const Scalar &min) {
  q7::check_defined(self, "clamp_min");
  Tensor result = q7::allocate(self.sizes(), clamp_type(self, min, min));
  return clamp_min_out(result, self, min);
}
Tensor &clamp_max_out(Tensor &result, const Tensor &self, const Scalar &max) {
  return clamp_impl(result, self, ClampOp(max, max, false, true), clamp_type(self, max, max));
}
Tensor clamp_max(const Tensor &self, const Scalar &max) {
  q7::check_defined(self, "clamp_max");
  Tensor result = q7::allocate(self.sizes(), clamp_type(self, max, max));
  return clamp_max_out(result, self, max);
}

Tensor where(const Tensor &condition, const Tensor &self, const Tensor &other) {
  q7::check_same_shape(condition, self, "where");
  q7::check_same_shape(self, other, "where");
  ScalarType common = promote_types(self.scalar_type(), other.scalar_type());
  Tensor result = q7::allocate(self.sizes(), common);
  const q7_tensor_desc *descs[4] = {result.q7_desc(), condition.q7_desc(), self.q7_desc(), other.q7_desc()};
  ScalarType tc = condition.scalar_type(), ts = self.scalar_type(), to = other.scalar_type();
  Kind kind = q7::kind_of(common);
  q7::walk(descs, [&](char **p) {
    bool pick = q7::load<int64_t>(p[1], tc) != 0;
    if (kind == Kind::F64 || kind == Kind::I64)
      q7::store<double>(p[0], common, pick ? q7::load<double>(p[2], ts) : q7::load<double>(p[3], to));
    else
      q7::store<float>(p[0], common, pick ? q7::load<float>(p[2], ts) : q7::load<float>(p[3], to));
  });
  return result;
}

// --- operators and members ---
Tensor operator+(const Tensor &a, const Tensor &b) { return add(a, b); }
Tensor operator+(const Tensor &a, const Scalar &b) { return add(a, b); }
Tensor operator+(const Scalar &a, const Tensor &b) { return add(b, a); }
Tensor operator-(const Tensor &a, const Tensor &b) { return sub(a, b); }
Tensor operator-(const Tensor &a, const Scalar &b) { return sub(a, b); }
Tensor operator-(const Scalar &a, const Tensor &b) { return add(neg(b), a); }
Tensor operator*(const Tensor &a, const Tensor &b) { return mul(a, b); }
Tensor operator*(const Tensor &a, const Scalar &b) { return mul(a, b); }
Tensor operator*(const Scalar &a, const Tensor &b) { return mul(a, b); }
Tensor operator/(const Tensor &a, const Tensor &b) { return div(a, b); }
Tensor operator/(const Tensor &a, const Scalar &b) { return div(a, b); }
Tensor operator/(const Scalar &a, const Tensor &b) { return div(a, b); }
Tensor &operator+=(Tensor &a, const Tensor &b) { return add_out(a, a, b); }
Tensor &operator+=(Tensor &a, const Scalar &b) { return add_out(a, a, b); }
Tensor &operator-=(Tensor &a, const Tensor &b) { return sub_out(a, a, b); }
Tensor &operator-=(Tensor &a, const Scalar &b) { return sub_out(a, a, b); }
Tensor &operator*=(Tensor &a, const Tensor &b) { return mul_out(a, a, b); }
Tensor &operator*=(Tensor &a, const Scalar &b) { return mul_out(a, a, b); }
Tensor &operator/=(Tensor &a, const Tensor &b) { return div_out(a, a, b); }
Tensor &operator/=(Tensor &a, const Scalar &b) { return div_out(a, a, b); }

Tensor Tensor::add(const Tensor &other, const Scalar &alpha) const { return at::add(*this, other, alpha); }
Tensor Tensor::add(const Scalar &other, const Scalar &alpha) const { return at::add(*this, other, alpha); }
Tensor Tensor::sub(const Tensor &other, const Scalar &alpha) const { return at::sub(*this, other, alpha); }
Tensor Tensor::sub(const Scalar &other, const Scalar &alpha) const { return at::sub(*this, other, alpha); }
Tensor Tensor::mul(const Tensor &other) const { return at::mul(*this, other); }
Tensor Tensor::mul(const Scalar &other) const { return at::mul(*this, other); }
Tensor Tensor::div(const Tensor &other) const { return at::div(*this, other); }
Tensor Tensor::div(const Scalar &other) const { return at::div(*this, other); }
Tensor Tensor::pow(const Tensor &exponent) const { return at::pow(*this, exponent); }
Tensor Tensor::pow(const Scalar &exponent) const { return at::pow(*this, exponent); }
Tensor Tensor::maximum(const Tensor &other) const { return at::maximum(*this, other); }
Tensor Tensor::minimum(const Tensor &other) const { return at::minimum(*this, other); }
Tensor Tensor::clamp(const Scalar &min, const Scalar &max) const { return at::clamp(*this, min, max); }
Tensor Tensor::clamp_min(const Scalar &min) const { return at::clamp_min(*this, min); }
Tensor Tensor::clamp_max(const Scalar &max) const { return at::clamp_max(*this, max); }

#define Q7_SELF Tensor &self = const_cast<Tensor &>(*this)
Tensor &Tensor::add_(const Tensor &other, const Scalar &alpha) const { Q7_SELF; return add_out(self, self, other, alpha); }
Tensor &Tensor::add_(const Scalar &other, const Scalar &alpha) const { Q7_SELF; return add_out(self, self, other, alpha); }
Tensor &Tensor::sub_(const Tensor &other, const Scalar &alpha) const { Q7_SELF; return sub_out(self, self, other, alpha); }
Tensor &Tensor::sub_(const Scalar &other, const Scalar &alpha) const { Q7_SELF; return sub_out(self, self, other, alpha); }
Tensor &Tensor::mul_(const Tensor &other) const { Q7_SELF; return mul_out(self, self, other); }
Tensor &Tensor::mul_(const Scalar &other) const { Q7_SELF; return mul_out(self, self, other); }
Tensor &Tensor::div_(const Tensor &other) const { Q7_SELF; return div_out(self, self, other); }
Tensor &Tensor::div_(const Scalar &other) const { Q7_SELF; return div_out(self, self, other); }
Tensor &Tensor::clamp_(const Scalar &min, const Scalar &max) const { Q7_SELF; return clamp_out(self, self, min, max); }
#undef Q7_SELF

}  // namespace at
