// c10::ScalarType: the element types, numbered as in PyTorch (and sdk/ABI.md).
#ifndef Q7_C10_SCALAR_TYPE_H
#define Q7_C10_SCALAR_TYPE_H

#include <stddef.h>
#include <stdint.h>
#include <c10/util/reduced_float_ops.h>

namespace c10 {

enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  Bool = 11,
  BFloat16 = 15,
  Undefined = 64,
};

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
// The sized aliases PyTorch also offers.
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kFloat64 = ScalarType::Double;

inline size_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Short:
    case ScalarType::Half:
    case ScalarType::BFloat16:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
      return 8;
    default:
      return 0;
  }
}

inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16;
}

inline bool isReducedFloatingType(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

inline bool isIntegralType(ScalarType t, bool include_bool) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
      return true;
    case ScalarType::Bool:
      return include_bool;
    default:
      return false;
  }
}

inline bool isSignedType(ScalarType t) { return t != ScalarType::Byte && t != ScalarType::Bool; }

// True for the types sdk/ABI.md defines.
inline bool isValidScalarType(ScalarType t) { return elementSize(t) != 0; }

inline const char *toString(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "Byte";
    case ScalarType::Char: return "Char";
    case ScalarType::Short: return "Short";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Half: return "Half";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Bool: return "Bool";
    case ScalarType::BFloat16: return "BFloat16";
    default: return "Undefined";
  }
}

// The ScalarType of a C++ element type (accessor<T>, data_ptr<T> checks).
template <class T>
struct CppTypeToScalarType;
#define Q7_CPP_TYPE(T, S) \
  template <>             \
  struct CppTypeToScalarType<T> { static constexpr ScalarType value = ScalarType::S; };
Q7_CPP_TYPE(uint8_t, Byte)
Q7_CPP_TYPE(int8_t, Char)
Q7_CPP_TYPE(int16_t, Short)
Q7_CPP_TYPE(int32_t, Int)
Q7_CPP_TYPE(int64_t, Long)
Q7_CPP_TYPE(Half, Half)
Q7_CPP_TYPE(float, Float)
Q7_CPP_TYPE(double, Double)
Q7_CPP_TYPE(bool, Bool)
Q7_CPP_TYPE(BFloat16, BFloat16)
#undef Q7_CPP_TYPE

}  // namespace c10

#endif
