// Tensor factories and element-wise operations of the Neuron tensor library
// (the documented set, plus common PyTorch companions).
//
// Operations do not broadcast: operands must have the same shape. A function
// ending in _out writes into `result` (which must have the operands' shape; its
// dtype decides the stored type) and returns it; the other form allocates the
// result with PyTorch's type promotion (integer inputs to exp, div, ... give
// kFloat). Float, Half and BFloat16 compute in float; Double in double.
#ifndef Q7_ATEN_FUNCTIONS_H
#define Q7_ATEN_FUNCTIONS_H

#include <ATen/core/Tensor.h>
#include <ATen/unary_ops.h>

namespace at {

// --- factories ---
Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar &fill_value, TensorOptions options = {});
Tensor eye(int64_t n, TensorOptions options = {});
Tensor eye(int64_t n, int64_t m, TensorOptions options = {});
Tensor empty_like(const Tensor &self, TensorOptions options = {});
Tensor zeros_like(const Tensor &self, TensorOptions options = {});
Tensor ones_like(const Tensor &self, TensorOptions options = {});
Tensor full_like(const Tensor &self, const Scalar &fill_value, TensorOptions options = {});
Tensor arange(const Scalar &end, TensorOptions options = {});
Tensor arange(const Scalar &start, const Scalar &end, const Scalar &step = 1, TensorOptions options = {});
// A tensor over caller-owned memory (contiguous), never freed by the runtime.
Tensor from_blob(void *data, IntArrayRef sizes, TensorOptions options = {});

// --- unary element-wise ---
#define Q7_UNARY_OP(name, kind, policy)                   \
  Tensor &name##_out(Tensor &result, const Tensor &self); \
  Tensor name(const Tensor &self);
Q7_UNARY_OPS(Q7_UNARY_OP)
#undef Q7_UNARY_OP

// --- binary element-wise ---
Tensor &add_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor &add_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
Tensor add(const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor add(const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
Tensor &sub_out(Tensor &result, const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor &sub_out(Tensor &result, const Tensor &self, const Scalar &other, const Scalar &alpha = 1);
Tensor sub(const Tensor &self, const Tensor &other, const Scalar &alpha = 1);
Tensor sub(const Tensor &self, const Scalar &other, const Scalar &alpha = 1);

#define Q7_BINARY_OP(name)                                                    \
  Tensor &name##_out(Tensor &result, const Tensor &self, const Tensor &other); \
  Tensor &name##_out(Tensor &result, const Tensor &self, const Scalar &other); \
  Tensor &name##_out(Tensor &result, const Scalar &self, const Tensor &other); \
  Tensor name(const Tensor &self, const Tensor &other);                       \
  Tensor name(const Tensor &self, const Scalar &other);                       \
  Tensor name(const Scalar &self, const Tensor &other);
Q7_BINARY_OP(mul)
Q7_BINARY_OP(div)
Q7_BINARY_OP(pow)
Q7_BINARY_OP(maximum)
Q7_BINARY_OP(minimum)
Q7_BINARY_OP(atan2)
Q7_BINARY_OP(fmod)
Q7_BINARY_OP(remainder)
Q7_BINARY_OP(bitwise_and)
Q7_BINARY_OP(bitwise_or)
Q7_BINARY_OP(bitwise_xor)
// Comparisons produce kBool tensors.
Q7_BINARY_OP(eq)
Q7_BINARY_OP(ne)
Q7_BINARY_OP(lt)
Q7_BINARY_OP(le)
Q7_BINARY_OP(gt)
Q7_BINARY_OP(ge)
#undef Q7_BINARY_OP

Tensor &clamp_out(Tensor &result, const Tensor &self, const Scalar &min, const Scalar &max);
Tensor clamp(const Tensor &self, const Scalar &min, const Scalar &max);
Tensor &clamp_min_out(Tensor &result, const Tensor &self, const Scalar &min);
Tensor clamp_min(const Tensor &self, const Scalar &min);
Tensor &clamp_max_out(Tensor &result, const Tensor &self, const Scalar &max);
Tensor clamp_max(const Tensor &self, const Scalar &max);
// cond ? self : other, element-wise (cond: kBool or any integer type).
Tensor where(const Tensor &condition, const Tensor &self, const Tensor &other);

// --- operators ---
Tensor operator-(const Tensor &self);
Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator+(const Tensor &a, const Scalar &b);
Tensor operator+(const Scalar &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Scalar &b);
Tensor operator-(const Scalar &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Scalar &b);
Tensor operator*(const Scalar &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Scalar &b);
Tensor operator/(const Scalar &a, const Tensor &b);
Tensor &operator+=(Tensor &a, const Tensor &b);
Tensor &operator+=(Tensor &a, const Scalar &b);
Tensor &operator-=(Tensor &a, const Tensor &b);
Tensor &operator-=(Tensor &a, const Scalar &b);
Tensor &operator*=(Tensor &a, const Tensor &b);
Tensor &operator*=(Tensor &a, const Scalar &b);
Tensor &operator/=(Tensor &a, const Tensor &b);
Tensor &operator/=(Tensor &a, const Scalar &b);

// The dtype PyTorch's promotion gives a binary operation.
ScalarType result_type(const Tensor &a, const Tensor &b);
ScalarType result_type(const Tensor &a, const Scalar &b);

}  // namespace at

#endif
