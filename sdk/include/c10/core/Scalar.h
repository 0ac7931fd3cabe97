// c10::Scalar: a number that is either floating (double), integral (int64) or
// boolean, converted on demand.
#ifndef Q7_C10_SCALAR_H
#define Q7_C10_SCALAR_H

#include <stdint.h>
#include <c10/core/ScalarType.h>

namespace c10 {

class Scalar {
 public:
  Scalar() : Scalar(int64_t(0)) {}
  Scalar(double v) : kind_(Kind::Floating) { v_.d = v; }
  Scalar(float v) : Scalar(double(v)) {}
  Scalar(Half v) : Scalar(double(float(v))) {}
  Scalar(BFloat16 v) : Scalar(double(float(v))) {}
  Scalar(bool v) : kind_(Kind::Boolean) { v_.i = v; }
  Scalar(char v) : Scalar((long long)v) {}
  Scalar(signed char v) : Scalar((long long)v) {}
  Scalar(unsigned char v) : Scalar((long long)v) {}
  Scalar(short v) : Scalar((long long)v) {}
  Scalar(unsigned short v) : Scalar((long long)v) {}
  Scalar(int v) : Scalar((long long)v) {}
  Scalar(unsigned int v) : Scalar((long long)v) {}
  Scalar(long v) : Scalar((long long)v) {}
  Scalar(unsigned long v) : Scalar((long long)v) {}
  Scalar(long long v) : kind_(Kind::Integral) { v_.i = v; }
  Scalar(unsigned long long v) : Scalar((long long)v) {}

  bool isFloatingPoint() const { return kind_ == Kind::Floating; }
  bool isIntegral(bool include_bool) const {
    return kind_ == Kind::Integral || (include_bool && kind_ == Kind::Boolean);
  }
  bool isBoolean() const { return kind_ == Kind::Boolean; }
  // The dtype a tensor made from this scalar alone would get.
  ScalarType type() const {
    return kind_ == Kind::Floating ? ScalarType::Double : kind_ == Kind::Boolean ? ScalarType::Bool : ScalarType::Long;
  }

  double toDouble() const { return kind_ == Kind::Floating ? v_.d : (double)v_.i; }
  float toFloat() const { return kind_ == Kind::Floating ? (float)v_.d : (float)v_.i; }
  int64_t toLong() const { return kind_ == Kind::Floating ? (int64_t)v_.d : v_.i; }
  int32_t toInt() const { return kind_ == Kind::Floating ? (int32_t)v_.d : (int32_t)v_.i; }
  int16_t toShort() const { return (int16_t)toInt(); }
  int8_t toChar() const { return (int8_t)toInt(); }
  uint8_t toByte() const { return (uint8_t)toInt(); }
  bool toBool() const { return kind_ == Kind::Floating ? v_.d != 0 : v_.i != 0; }
  Half toHalf() const { return Half(toFloat()); }
  BFloat16 toBFloat16() const { return BFloat16(toFloat()); }

  template <class T>
  T to() const;

  Scalar operator-() const {
    if (kind_ == Kind::Floating) return Scalar(-v_.d);
    return Scalar((long long)-v_.i);
  }

 private:
  enum class Kind : uint8_t { Floating, Integral, Boolean };
  Kind kind_;
  union {
    double d;
    int64_t i;
  } v_;
};

template <> inline double Scalar::to<double>() const { return toDouble(); }
template <> inline float Scalar::to<float>() const { return toFloat(); }
template <> inline int64_t Scalar::to<int64_t>() const { return toLong(); }
template <> inline int32_t Scalar::to<int32_t>() const { return toInt(); }
template <> inline int16_t Scalar::to<int16_t>() const { return toShort(); }
template <> inline int8_t Scalar::to<int8_t>() const { return toChar(); }
template <> inline uint8_t Scalar::to<uint8_t>() const { return toByte(); }
template <> inline bool Scalar::to<bool>() const { return toBool(); }
template <> inline Half Scalar::to<Half>() const { return toHalf(); }
template <> inline BFloat16 Scalar::to<BFloat16>() const { return toBFloat16(); }

}  // namespace c10

#endif
