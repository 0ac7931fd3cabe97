// A minimal host torch for q7's shape programs: tensors that carry sizes and
// a dtype and no data, which is all a Neuron shape function needs. Shape
// sources compile against it with any host C++17 compiler, no libtorch
// (sdk/host/README.md). The names and signatures follow libtorch's, so the
// same source also builds against the real one.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace c10 {

enum class ScalarType : int8_t { Byte, Char, Short, Int, Long, Half, Float, Double, BFloat16, Bool };

// Bytes per element, as the device stores them.
inline int64_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
    case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16: return 2;
    case ScalarType::Int: case ScalarType::Float: return 4;
    case ScalarType::Long: case ScalarType::Double: return 8;
  }
  return 0;
}

// A number of either kind, as torch::Scalar holds it.
class Scalar {
 public:
  template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
  Scalar(T v) : integral_(std::is_integral<T>::value), d_(static_cast<double>(v)), i_(static_cast<int64_t>(v)) {}
  Scalar() : Scalar(int64_t{0}) {}
  double toDouble() const { return integral_ ? static_cast<double>(i_) : d_; }
  float toFloat() const { return static_cast<float>(toDouble()); }
  int64_t toLong() const { return integral_ ? i_ : static_cast<int64_t>(d_); }
  int toInt() const { return static_cast<int>(toLong()); }
  bool isIntegral(bool /*includeBool*/ = false) const { return integral_; }
  bool isFloatingPoint() const { return !integral_; }

 private:
  bool integral_;
  double d_;
  int64_t i_;
};

// Sizes by value (libtorch's is a view; a copy is as good for shapes).
class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(std::initializer_list<int64_t> v) : v_(v) {}
  IntArrayRef(const std::vector<int64_t>& v) : v_(v) {}
  IntArrayRef(const int64_t* data, size_t n) : v_(data, data + n) {}
  IntArrayRef(int64_t single) : v_{single} {}
  size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  int64_t operator[](size_t i) const { return v_.at(i); }
  int64_t front() const { return v_.front(); }
  int64_t back() const { return v_.back(); }
  const int64_t* data() const { return v_.data(); }
  std::vector<int64_t>::const_iterator begin() const { return v_.begin(); }
  std::vector<int64_t>::const_iterator end() const { return v_.end(); }
  std::vector<int64_t> vec() const { return v_; }

 private:
  std::vector<int64_t> v_;
};

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions dtype(ScalarType t) const { return TensorOptions(t); }
  ScalarType dtype() const { return dtype_; }
  // Devices and layouts do not change a shape.
  template <typename T> TensorOptions device(T&&) const { return *this; }
  TensorOptions requires_grad(bool = true) const { return *this; }

 private:
  ScalarType dtype_ = ScalarType::Float;
};

}  // namespace c10

namespace at {

using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;

class Tensor {
 public:
  Tensor() = default;
  // Errors as libtorch words them (its RuntimeError and IndexError become
  // Python's when q7 calls the shape function from Python).
  Tensor(IntArrayRef sizes, ScalarType dtype) : sizes_(sizes.vec()), dtype_(dtype) {
    for (int64_t d : sizes_) {
      if (d < 0) {
        std::string all;
        for (int64_t e : sizes_) all += (all.empty() ? "" : ", ") + std::to_string(e);
        throw std::runtime_error("Trying to create tensor with negative dimension " + std::to_string(d) + ": [" + all +
                                 "]");
      }
    }
  }
  IntArrayRef sizes() const { return IntArrayRef(sizes_); }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t size(int64_t d) const { return sizes_.at(static_cast<size_t>(wrap(d))); }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : sizes_) n *= d;
    return n;
  }
  ScalarType scalar_type() const { return dtype_; }
  ScalarType dtype() const { return dtype_; }
  TensorOptions options() const { return TensorOptions(dtype_); }
  int64_t element_size() const { return c10::elementSize(dtype_); }
  int64_t nbytes() const { return numel() * element_size(); }
  bool is_contiguous() const { return true; }

 private:
  int64_t wrap(int64_t d) const {
    int64_t n = dim();
    if (n == 0) throw std::out_of_range("dimension specified as " + std::to_string(d) + " but tensor has no dimensions");
    if (d < -n || d >= n) {
      throw std::out_of_range("Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                              std::to_string(n - 1) + "], but got " + std::to_string(d) + ")");
    }
    return d < 0 ? d + n : d;
  }

  std::vector<int64_t> sizes_;
  ScalarType dtype_ = ScalarType::Float;
};

inline Tensor empty(IntArrayRef sizes, TensorOptions o = {}) { return Tensor(sizes, o.dtype()); }
inline Tensor zeros(IntArrayRef sizes, TensorOptions o = {}) { return Tensor(sizes, o.dtype()); }
inline Tensor ones(IntArrayRef sizes, TensorOptions o = {}) { return Tensor(sizes, o.dtype()); }
inline Tensor full(IntArrayRef sizes, const Scalar&, TensorOptions o = {}) { return Tensor(sizes, o.dtype()); }
inline Tensor empty_like(const Tensor& t) { return Tensor(t.sizes(), t.scalar_type()); }
inline Tensor zeros_like(const Tensor& t) { return Tensor(t.sizes(), t.scalar_type()); }
inline Tensor ones_like(const Tensor& t) { return Tensor(t.sizes(), t.scalar_type()); }

}  // namespace at

namespace torch {

using at::empty;
using at::empty_like;
using at::full;
using at::ones;
using at::ones_like;
using at::Tensor;
using at::zeros;
using at::zeros_like;
using c10::IntArrayRef;
using c10::Scalar;
using c10::ScalarType;
using c10::TensorOptions;
using Dtype = c10::ScalarType;

inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kFloat64 = ScalarType::Double;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kBool = ScalarType::Bool;

}  // namespace torch

namespace at {
using torch::kBFloat16;
using torch::kBool;
using torch::kByte;
using torch::kChar;
using torch::kDouble;
using torch::kFloat;
using torch::kHalf;
using torch::kInt;
using torch::kLong;
using torch::kShort;
}  // namespace at

namespace q7host {
inline std::string concat() { return "check failed"; }
template <typename... T>
std::string concat(const T&... parts) {
  std::ostringstream s;
  (void)std::initializer_list<int>{((s << parts), 0)...};
  return s.str();
}
}  // namespace q7host

// A shape function's argument check, as libtorch's: throws with the message.
#define TORCH_CHECK(cond, ...) \
  do {                         \
    if (!(cond)) throw std::runtime_error(q7host::concat(__VA_ARGS__)); \
  } while (false)

#include <torch/library.h>
