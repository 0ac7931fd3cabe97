// The accessors of the Neuron tensor library: element-wise random access
// (TensorAccessor), sequential streams (TensorRead/WriteStreamAccessor) and bulk
// copies between a tensor and TCM (TensorTcmAccessor). On the simulated core all
// of them reach tensor memory directly; there are no caches to keep coherent.
#ifndef Q7_ATEN_TENSOR_ACCESSOR_H
#define Q7_ATEN_TENSOR_ACCESSOR_H

#include <stddef.h>
#include <stdint.h>
#include <type_traits>
#include <c10/util/ArrayRef.h>
#include <q7/abi.h>

namespace at {

// Element-wise access to an N-dimensional tensor: a[i][j]... Indices are not
// bounds-checked (as in PyTorch). Offsets are computed in 32 bits: tensor memory
// is a 32-bit address space.
template <typename T, size_t N, bool read_only = false>
class TensorAccessor {
 public:
  typedef typename std::conditional<read_only, const T, T>::type element_type;

  TensorAccessor(element_type *data, const int64_t *sizes, const int64_t *strides)
      : data_(data), sizes_(sizes), strides_(strides) {}

  TensorAccessor<T, N - 1, read_only> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1, read_only>(data_ + (ptrdiff_t)strides_[0] * (ptrdiff_t)i, sizes_ + 1,
                                               strides_ + 1);
  }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  c10::IntArrayRef sizes() const { return c10::IntArrayRef(sizes_, N); }
  c10::IntArrayRef strides() const { return c10::IntArrayRef(strides_, N); }
  element_type *data() const { return data_; }

 private:
  element_type *data_;
  const int64_t *sizes_;
  const int64_t *strides_;
};

template <typename T, bool read_only>
class TensorAccessor<T, 1, read_only> {
 public:
  typedef typename std::conditional<read_only, const T, T>::type element_type;

  TensorAccessor(element_type *data, const int64_t *sizes, const int64_t *strides)
      : data_(data), sizes_(sizes), strides_(strides), stride0_((ptrdiff_t)strides[0]) {}

  element_type &operator[](int64_t i) const { return data_[stride0_ * (ptrdiff_t)i]; }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  c10::IntArrayRef sizes() const { return c10::IntArrayRef(sizes_, 1); }
  c10::IntArrayRef strides() const { return c10::IntArrayRef(strides_, 1); }
  element_type *data() const { return data_; }

 private:
  element_type *data_;
  const int64_t *sizes_;
  const int64_t *strides_;
  ptrdiff_t stride0_;
};

// Sequential reads in memory order. Reading past the end is undefined.
template <typename T>
class TensorReadStreamAccessor {
 public:
  TensorReadStreamAccessor(const T *data, size_t count) : next_(data), end_(data + count) {}
  T read() { return *next_++; }
  int close() {
    next_ = end_;
    return 0;
  }

 private:
  const T *next_;
  const T *end_;
};

// Sequential writes in memory order; stores land immediately, close() is only
// for API compatibility.
template <typename T>
class TensorWriteStreamAccessor {
 public:
  TensorWriteStreamAccessor(T *data, size_t count) : next_(data), end_(data + count) {}
  void write(T value) { *next_++ = value; }
  int close() {
    next_ = end_;
    return 0;
  }

 private:
  T *next_;
  T *end_;
};

// Copies between a TCM buffer and a tensor, indexing the tensor as if flattened
// (logical row-major order, whatever its strides).
void q7_tensor_to_tcm(const q7_tensor_desc *desc, void *tcm, size_t offset, size_t count, size_t elem_size);
void q7_tcm_to_tensor(const q7_tensor_desc *desc, const void *tcm, size_t offset, size_t count, size_t elem_size);
void q7_check_element_type(const q7_tensor_desc *desc, int dtype, size_t elem_size, const char *what);

template <bool read_only>
class TensorTcmAccessor {
 public:
  explicit TensorTcmAccessor(const q7_tensor_desc *desc) : desc_(desc) {}

  template <typename T>
  void tensor_to_tcm(T *tcm_ptr, size_t tensor_offset, size_t num_elem) const {
    q7_tensor_to_tcm(desc_, tcm_ptr, tensor_offset, num_elem, sizeof(T));
  }
  template <typename T>
  void tcm_to_tensor(T *tcm_ptr, size_t tensor_offset, size_t num_elem) const {
    static_assert(!read_only, "tcm_to_tensor on the TCM accessor of a const tensor");
    q7_tcm_to_tensor(desc_, tcm_ptr, tensor_offset, num_elem, sizeof(T));
  }

 private:
  const q7_tensor_desc *desc_;
};

// Accessor coherence (a no-op here: accessors have no caches), kept so that
// code selecting a policy compiles.
struct CoherencyEnforcer {
  enum Policy { COHERENT, INCOHERENT_VERBOSE, INCOHERENT_QUIET };
};

}  // namespace at

#endif
