// Typed kernels behind the element-wise operations. A kernel computes in one
// of four value types (the "kind": int32, int64, float, double), loading each
// operand with conversion from its dtype and storing with conversion to the
// result's dtype. All-float contiguous operands take a direct loop.
#ifndef Q7_SRC_TORCH_ELEMENTWISE_KERNELS_H
#define Q7_SRC_TORCH_ELEMENTWISE_KERNELS_H

#include <string.h>
#include <type_traits>
#include "tensor_internal.h"

namespace at {
namespace q7 {

enum class Kind { I32, I64, F32, F64 };

inline Kind kind_of(ScalarType t) {
  switch (t) {
    case ScalarType::Long: return Kind::I64;
    case ScalarType::Double: return Kind::F64;
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::BFloat16: return Kind::F32;
    default: return Kind::I32;
  }
}

inline ScalarType dtype_of(Kind k) {
  switch (k) {
    case Kind::I32: return ScalarType::Int;
    case Kind::I64: return ScalarType::Long;
    case Kind::F32: return ScalarType::Float;
    default: return ScalarType::Double;
  }
}

// A Scalar operand seen as a tensor of the result's shape with zero strides.
struct ScalarOperand {
  q7_tensor_desc desc;
  union {
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
  } value;

  ScalarOperand(const Scalar &s, const q7_tensor_desc &shape, Kind kind) {
    memset(&desc, 0, sizeof desc);
    desc.rank = shape.rank;
    for (uint32_t i = 0; i < shape.rank; ++i) desc.sizes[i] = shape.sizes[i];
    desc.numel = shape.numel;
    desc.dtype = (uint32_t)dtype_of(kind);
    desc.data = (q7_addr)(uintptr_t)&value;
    switch (kind) {
      case Kind::I32: value.i32 = s.isBoolean() ? (int32_t)s.toBool() : s.toInt(); break;
      case Kind::I64: value.i64 = s.isBoolean() ? (int64_t)s.toBool() : s.toLong(); break;
      case Kind::F32: value.f32 = s.toFloat(); break;
      case Kind::F64: value.f64 = s.toDouble(); break;
    }
  }
  ScalarOperand(const ScalarOperand &) = delete;
};

inline bool is_broadcast_scalar(const q7_tensor_desc *d) {
  for (uint32_t i = 0; i < d->rank; ++i)
    if (d->strides[i] != 0 && d->sizes[i] != 1) return false;
  return true;
}

inline bool is_dense_float(const q7_tensor_desc *d) {
  return d->dtype == (uint32_t)ScalarType::Float && is_contiguous(*d);
}

template <class V, class Op>
void unary_typed(const q7_tensor_desc *out, const q7_tensor_desc *a, const Op &op) {
  ScalarType to = (ScalarType)out->dtype, ta = (ScalarType)a->dtype;
  if (std::is_same<V, float>::value && is_dense_float(out) && is_dense_float(a)) {
    float *o = (float *)(uintptr_t)out->data;
    const float *x = (const float *)(uintptr_t)a->data;
    for (int64_t i = 0, n = out->numel; i < n; ++i) o[i] = (float)op((V)x[i]);
    return;
  }
  const q7_tensor_desc *descs[2] = {out, a};
  walk(descs, [&](char **p) { store<V>(p[0], to, op(load<V>(p[1], ta))); });
}

template <class V, class Op>
void binary_typed(const q7_tensor_desc *out, const q7_tensor_desc *a, const q7_tensor_desc *b, const Op &op) {
  ScalarType to = (ScalarType)out->dtype, ta = (ScalarType)a->dtype, tb = (ScalarType)b->dtype;
  if (std::is_same<V, float>::value && is_dense_float(out)) {
    bool a_scalar = is_broadcast_scalar(a) && ta == ScalarType::Float;
    bool b_scalar = is_broadcast_scalar(b) && tb == ScalarType::Float;
    if ((a_scalar || is_dense_float(a)) && (b_scalar || is_dense_float(b))) {
      float *o = (float *)(uintptr_t)out->data;
      const float *x = (const float *)(uintptr_t)a->data;
      const float *y = (const float *)(uintptr_t)b->data;
      ptrdiff_t xs = a_scalar ? 0 : 1, ys = b_scalar ? 0 : 1;
      for (int64_t i = 0, n = out->numel; i < n; ++i)
        o[i] = (float)op((V)x[(ptrdiff_t)i * xs], (V)y[(ptrdiff_t)i * ys]);
      return;
    }
  }
  const q7_tensor_desc *descs[3] = {out, a, b};
  walk(descs, [&](char **p) { store<V>(p[0], to, op(load<V>(p[1], ta), load<V>(p[2], tb))); });
}

template <class Op>
void unary_kernel(Kind kind, const q7_tensor_desc *out, const q7_tensor_desc *a, const Op &op) {
  switch (kind) {
    case Kind::I32: unary_typed<int32_t>(out, a, op); break;
    case Kind::I64: unary_typed<int64_t>(out, a, op); break;
    case Kind::F32: unary_typed<float>(out, a, op); break;
    case Kind::F64: unary_typed<double>(out, a, op); break;
  }
}

template <class Op>
void binary_kernel(Kind kind, const q7_tensor_desc *out, const q7_tensor_desc *a, const q7_tensor_desc *b,
                   const Op &op) {
  switch (kind) {
    case Kind::I32: binary_typed<int32_t>(out, a, b, op); break;
    case Kind::I64: binary_typed<int64_t>(out, a, b, op); break;
    case Kind::F32: binary_typed<float>(out, a, b, op); break;
    case Kind::F64: binary_typed<double>(out, a, b, op); break;
  }
}

// Wrapping integer arithmetic (no signed-overflow UB).
inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
inline int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
inline int64_t wrap_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
inline int32_t wrap_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
inline float wrap_add(float a, float b) { return a + b; }
inline double wrap_add(double a, double b) { return a + b; }
inline float wrap_sub(float a, float b) { return a - b; }
inline double wrap_sub(double a, double b) { return a - b; }
inline float wrap_mul(float a, float b) { return a * b; }
inline double wrap_mul(double a, double b) { return a * b; }

}  // namespace q7
}  // namespace at

#endif
