// at::Tensor (torch::Tensor): a handle to a tensor descriptor (sdk/ABI.md).
//
// Copies of a Tensor share the same storage, as in PyTorch. Tensors the op
// creates live in the core's heap slice and are reference counted: the storage
// is released when the last handle goes away. Tensors the host passed in (the
// arguments and get_dst_tensor()) are borrowed and never freed.
#ifndef Q7_ATEN_TENSOR_H
#define Q7_ATEN_TENSOR_H

#include <ATen/unary_ops.h>

#include <stddef.h>
#include <stdint.h>
#include <ATen/core/TensorAccessor.h>
#include <c10/core/Scalar.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>
#include <q7/abi.h>

namespace at {

using c10::ArrayRef;
using c10::BFloat16;
using c10::Half;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;

class Tensor {
 public:
  Tensor() : desc_(nullptr) {}
  // Wraps a descriptor; device-allocated descriptors gain a reference.
  explicit Tensor(q7_tensor_desc *desc);
  Tensor(const Tensor &other);
  Tensor(Tensor &&other) noexcept : desc_(other.desc_) { other.desc_ = nullptr; }
  ~Tensor();
  Tensor &operator=(const Tensor &other) &;
  Tensor &operator=(Tensor &&other) &;

  bool defined() const { return desc_ != nullptr; }
  int64_t dim() const { return desc_->rank; }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return desc_->numel; }
  IntArrayRef sizes() const { return IntArrayRef(desc_->sizes, desc_->rank); }
  IntArrayRef strides() const { return IntArrayRef(desc_->strides, desc_->rank); }
  int64_t size(int64_t d) const { return desc_->sizes[wrap_dim(d)]; }
  int64_t stride(int64_t d) const { return desc_->strides[wrap_dim(d)]; }
  ScalarType scalar_type() const { return (ScalarType)desc_->dtype; }
  ScalarType dtype() const { return scalar_type(); }
  TensorOptions options() const { return TensorOptions(scalar_type()); }
  size_t element_size() const { return c10::elementSize(scalar_type()); }
  size_t itemsize() const { return element_size(); }
  size_t nbytes() const { return (size_t)numel() * element_size(); }
  bool is_contiguous() const;

  void *data_ptr() const { return (void *)(uintptr_t)desc_->data; }
  template <typename T>
  T *data_ptr() const {
    q7_check_element_type(desc_, (int)c10::CppTypeToScalarType<T>::value, sizeof(T), "data_ptr");
    return (T *)data_ptr();
  }
  template <typename T>
  const T *const_data_ptr() const {
    return data_ptr<T>();
  }
  template <typename T>
  T *mutable_data_ptr() const {
    return data_ptr<T>();
  }

  template <typename T, size_t N>
  TensorAccessor<T, N, true> accessor() const & {
    check_accessor(N, (int)c10::CppTypeToScalarType<T>::value, sizeof(T));
    return TensorAccessor<T, N, true>((const T *)data_ptr(), desc_->sizes, desc_->strides);
  }
  template <typename T, size_t N>
  TensorAccessor<T, N, false> accessor() & {
    check_accessor(N, (int)c10::CppTypeToScalarType<T>::value, sizeof(T));
    return TensorAccessor<T, N, false>((T *)data_ptr(), desc_->sizes, desc_->strides);
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  template <typename T>
  TensorReadStreamAccessor<T> read_stream_accessor() const & {
    q7_check_element_type(desc_, (int)c10::CppTypeToScalarType<T>::value, sizeof(T), "read_stream_accessor");
    return TensorReadStreamAccessor<T>((const T *)data_ptr(), (size_t)numel());
  }
  template <typename T>
  TensorReadStreamAccessor<T> read_stream_accessor() && = delete;
  template <typename T>
  TensorWriteStreamAccessor<T> write_stream_accessor() & {
    q7_check_element_type(desc_, (int)c10::CppTypeToScalarType<T>::value, sizeof(T), "write_stream_accessor");
    return TensorWriteStreamAccessor<T>((T *)data_ptr(), (size_t)numel());
  }
  template <typename T>
  TensorWriteStreamAccessor<T> write_stream_accessor() && = delete;

  TensorTcmAccessor<true> tcm_accessor() const & { return TensorTcmAccessor<true>(desc_); }
  TensorTcmAccessor<false> tcm_accessor() & { return TensorTcmAccessor<false>(desc_); }
  TensorTcmAccessor<false> tcm_accessor() && = delete;

  CoherencyEnforcer::Policy get_accessor_coherence_policy() const { return CoherencyEnforcer::COHERENT; }
  void set_accessor_coherence_policy(CoherencyEnforcer::Policy) const {}

  // In-place fills and copies (const, as in PyTorch: they change the data, not the handle).
  Tensor &fill_(const Scalar &value) const;
  Tensor &zero_() const;
  Tensor &copy_(const Tensor &src) const;

  Tensor clone() const;
  Tensor contiguous() const;
  Tensor to(ScalarType dtype) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor view(IntArrayRef sizes) const;
  Tensor flatten() const;
  Scalar item() const;
  template <typename T>
  T item() const {
    return item().to<T>();
  }

  // Element-wise operations (see <ATen/Functions.h> for the free functions).
  Tensor add(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor add(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor sub(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor sub(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor mul(const Tensor &other) const;
  Tensor mul(const Scalar &other) const;
  Tensor div(const Tensor &other) const;
  Tensor div(const Scalar &other) const;
  Tensor pow(const Tensor &exponent) const;
  Tensor pow(const Scalar &exponent) const;
  Tensor maximum(const Tensor &other) const;
  Tensor minimum(const Tensor &other) const;
  Tensor clamp(const Scalar &min, const Scalar &max) const;
  Tensor clamp_min(const Scalar &min) const;
  Tensor clamp_max(const Scalar &max) const;
  Tensor &add_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &add_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Tensor &other, const Scalar &alpha = 1) const;
  Tensor &sub_(const Scalar &other, const Scalar &alpha = 1) const;
  Tensor &mul_(const Tensor &other) const;
  Tensor &mul_(const Scalar &other) const;
  Tensor &div_(const Tensor &other) const;
  Tensor &div_(const Scalar &other) const;
  Tensor &clamp_(const Scalar &min, const Scalar &max) const;
#define Q7_UNARY_MEMBER(name) \
  Tensor name() const;        \
  Tensor &name##_() const;
  Q7_UNARY_METHODS(Q7_UNARY_MEMBER)
#undef Q7_UNARY_MEMBER

  // The descriptor behind this handle (sdk/ABI.md layout).
  q7_tensor_desc *q7_desc() const { return desc_; }

 private:
  size_t wrap_dim(int64_t d) const { return (size_t)(d < 0 ? d + (int64_t)desc_->rank : d); }
  void check_accessor(size_t rank, int dtype, size_t elem_size) const;

  q7_tensor_desc *desc_;
};

}  // namespace at

#endif
