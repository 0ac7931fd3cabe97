// c10::TensorOptions: the properties of a tensor a factory creates. Only the
// dtype has an effect (as in the Neuron tensor library); device, layout and
// the like are accepted and ignored so that ordinary PyTorch code compiles.
#ifndef Q7_C10_TENSOR_OPTIONS_H
#define Q7_C10_TENSOR_OPTIONS_H

#include <c10/core/ScalarType.h>

namespace c10 {

enum class DeviceType : int8_t { CPU = 0 };
constexpr DeviceType kCPU = DeviceType::CPU;
enum class Layout : int8_t { Strided = 0 };
constexpr Layout kStrided = Layout::Strided;
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };

struct Device {
  constexpr Device(DeviceType type = DeviceType::CPU, int index = -1) : type_(type), index_(index) {}
  constexpr DeviceType type() const { return type_; }
  constexpr int index() const { return index_; }

 private:
  DeviceType type_;
  int index_;
};

class TensorOptions {
 public:
  constexpr TensorOptions() : dtype_(ScalarType::Float), has_dtype_(false) {}
  constexpr TensorOptions(ScalarType dtype) : dtype_(dtype), has_dtype_(true) {}
  constexpr TensorOptions(DeviceType) : dtype_(ScalarType::Float), has_dtype_(false) {}
  constexpr TensorOptions(Device) : dtype_(ScalarType::Float), has_dtype_(false) {}

  constexpr TensorOptions dtype(ScalarType dtype) const { return TensorOptions(dtype); }
  template <class T>
  constexpr TensorOptions dtype() const {
    return TensorOptions(CppTypeToScalarType<T>::value);
  }
  constexpr ScalarType dtype() const { return dtype_; }
  constexpr bool has_dtype() const { return has_dtype_; }

  template <class... A>
  constexpr TensorOptions device(A &&...) const {
    return *this;
  }
  template <class... A>
  constexpr TensorOptions layout(A &&...) const {
    return *this;
  }
  template <class... A>
  constexpr TensorOptions requires_grad(A &&...) const {
    return *this;
  }
  template <class... A>
  constexpr TensorOptions pinned_memory(A &&...) const {
    return *this;
  }
  template <class... A>
  constexpr TensorOptions memory_format(A &&...) const {
    return *this;
  }

 private:
  ScalarType dtype_;
  bool has_dtype_;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
template <class T>
inline TensorOptions dtype() {
  return TensorOptions(CppTypeToScalarType<T>::value);
}

}  // namespace c10

#endif
