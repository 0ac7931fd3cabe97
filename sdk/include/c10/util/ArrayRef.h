// c10::ArrayRef<T>: a non-owning view of a contiguous array (sizes, strides).
// IntArrayRef is ArrayRef<int64_t>; a braced list such as {n, m} converts to it.
#ifndef Q7_C10_ARRAY_REF_H
#define Q7_C10_ARRAY_REF_H

#include <stddef.h>
#include <stdint.h>
#include <initializer_list>

namespace c10 {

template <class T>
class ArrayRef {
 public:
  typedef const T *iterator;
  typedef const T *const_iterator;
  typedef size_t size_type;
  typedef T value_type;

  constexpr ArrayRef() : data_(nullptr), length_(0) {}
  constexpr ArrayRef(const T &one) : data_(&one), length_(1) {}
  constexpr ArrayRef(const T *data, size_t length) : data_(data), length_(length) {}
  constexpr ArrayRef(const T *begin, const T *end) : data_(begin), length_((size_t)(end - begin)) {}
  template <size_t N>
  constexpr ArrayRef(const T (&array)[N]) : data_(array), length_(N) {}
  constexpr ArrayRef(const std::initializer_list<T> &list)
      : data_(list.begin() == list.end() ? nullptr : list.begin()), length_(list.size()) {}

  constexpr const T *begin() const { return data_; }
  constexpr const T *end() const { return data_ + length_; }
  constexpr const T *data() const { return data_; }
  constexpr size_t size() const { return length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T &operator[](size_t i) const { return data_[i]; }
  constexpr const T &at(size_t i) const { return data_[i]; }
  constexpr const T &front() const { return data_[0]; }
  constexpr const T &back() const { return data_[length_ - 1]; }
  constexpr ArrayRef slice(size_t start, size_t count) const { return ArrayRef(data_ + start, count); }
  constexpr ArrayRef slice(size_t start) const { return ArrayRef(data_ + start, length_ - start); }

  bool equals(ArrayRef other) const {
    if (length_ != other.length_) return false;
    for (size_t i = 0; i < length_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }

 private:
  const T *data_;
  size_t length_;
};

template <class T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <class T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}

typedef ArrayRef<int64_t> IntArrayRef;

}  // namespace c10

#endif
