// Internals shared by the tensor sources: allocation of device tensors,
// element loads/stores with dtype conversion, and a row-major walk over the
// elements of same-shaped tensors.
#ifndef Q7_SRC_TORCH_TENSOR_INTERNAL_H
#define Q7_SRC_TORCH_TENSOR_INTERNAL_H

#include <stdint.h>
#include <torch/torch.h>
#include <q7/runtime.h>

namespace at {
namespace q7 {

// A new contiguous device tensor (descriptor and data in one heap block).
Tensor allocate(IntArrayRef sizes, ScalarType dtype);
Tensor allocate_like(const q7_tensor_desc &shape, ScalarType dtype);

bool same_shape(const q7_tensor_desc &a, const q7_tensor_desc &b);
void check_same_shape(const Tensor &a, const Tensor &b, const char *op);
void check_defined(const Tensor &t, const char *op);
bool is_contiguous(const q7_tensor_desc &d);

// bool -> V without letting the compiler form a select between two float
// constants: clang-22's Xtensa backend cannot lower that ("Cannot select:
// TargetConstantPool [2 x float]"). The empty asm hides the 0/1 value.
inline int32_t opaque(int32_t v) {
  __asm__("" : "+r"(v));
  return v;
}
template <class V>
V from_bool(bool b) {
  return (V)opaque(b ? 1 : 0);
}

// Element conversion; V is int32_t, int64_t, float or double.
template <class V>
V load(const char *p, ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return (V)*(const uint8_t *)p;
    case ScalarType::Char: return (V)*(const int8_t *)p;
    case ScalarType::Short: return (V)*(const int16_t *)p;
    case ScalarType::Int: return (V)*(const int32_t *)p;
    case ScalarType::Long: return (V)*(const int64_t *)p;
    case ScalarType::Half: return (V)(float)*(const Half *)p;
    case ScalarType::Float: return (V)*(const float *)p;
    case ScalarType::Double: return (V)*(const double *)p;
    case ScalarType::Bool: return from_bool<V>(*(const uint8_t *)p != 0);
    case ScalarType::BFloat16: return (V)(float)*(const BFloat16 *)p;
    default: return V(0);
  }
}

template <class V>
void store(char *p, ScalarType t, V v) {
  switch (t) {
    case ScalarType::Byte: *(uint8_t *)p = (uint8_t)(int32_t)v; break;
    case ScalarType::Char: *(int8_t *)p = (int8_t)(int32_t)v; break;
    case ScalarType::Short: *(int16_t *)p = (int16_t)(int32_t)v; break;
    case ScalarType::Int: *(int32_t *)p = (int32_t)v; break;
    case ScalarType::Long: *(int64_t *)p = (int64_t)v; break;
    case ScalarType::Half: *(Half *)p = Half((float)v); break;
    case ScalarType::Float: *(float *)p = (float)v; break;
    case ScalarType::Double: *(double *)p = (double)v; break;
    case ScalarType::Bool: *(uint8_t *)p = v != V(0); break;
    case ScalarType::BFloat16: *(BFloat16 *)p = BFloat16((float)v); break;
    default: break;
  }
}

// Calls fn(p[0], ..., p[K-1]) for every element of K same-shaped tensors in
// row-major order, p[i] pointing at the element of tensor i.
template <int K, class F>
void walk(const q7_tensor_desc *const (&descs)[K], F fn) {
  const q7_tensor_desc &shape = *descs[0];
  int64_t count = shape.numel;
  if (count <= 0) return;
  char *ptr[K];
  ptrdiff_t elem[K];
  bool contiguous = true;
  for (int i = 0; i < K; ++i) {
    ptr[i] = (char *)(uintptr_t)descs[i]->data;
    elem[i] = (ptrdiff_t)c10::elementSize((ScalarType)descs[i]->dtype);
    contiguous = contiguous && is_contiguous(*descs[i]);
  }
  if (contiguous) {
    for (int64_t n = count; n > 0; --n) {
      fn(ptr);
      for (int i = 0; i < K; ++i) ptr[i] += elem[i];
    }
    return;
  }
  int rank = (int)shape.rank;
  int32_t index[Q7_MAX_RANK] = {0};
  for (int64_t n = count; n > 0; --n) {
    fn(ptr);
    for (int d = rank - 1; d >= 0; --d) {
      for (int i = 0; i < K; ++i) ptr[i] += (ptrdiff_t)descs[i]->strides[d] * elem[i];
      if (++index[d] < (int32_t)shape.sizes[d]) break;
      for (int i = 0; i < K; ++i) ptr[i] -= (ptrdiff_t)descs[i]->strides[d] * elem[i] * (ptrdiff_t)index[d];
      index[d] = 0;
    }
  }
}

}  // namespace q7
}  // namespace at

#endif
