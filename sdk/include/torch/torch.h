// <torch/torch.h> for Neuron custom C++ operators on the q7 open SDK: the
// torch:: names of the Neuron tensor library (tensors, factories, element-wise
// operations, accessors) and the freestanding C/C++ headers operator code
// commonly relies on.
#ifndef Q7_TORCH_TORCH_H
#define Q7_TORCH_TORCH_H

#include <stddef.h>
#include <stdint.h>
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ATen/ATen.h>

namespace torch {
using namespace at;
using c10::Device;
using c10::DeviceType;
using c10::Layout;
using c10::MemoryFormat;
typedef c10::ScalarType Dtype;
using c10::dtype;
using c10::kBFloat16;
using c10::kBool;
using c10::kByte;
using c10::kChar;
using c10::kCPU;
using c10::kDouble;
using c10::kFloat;
using c10::kFloat16;
using c10::kFloat32;
using c10::kFloat64;
using c10::kHalf;
using c10::kInt;
using c10::kInt16;
using c10::kInt32;
using c10::kInt64;
using c10::kInt8;
using c10::kLong;
using c10::kShort;
using c10::kStrided;
using c10::kUInt8;
}  // namespace torch

namespace at {
using c10::kBFloat16;
using c10::kBool;
using c10::kByte;
using c10::kChar;
using c10::kDouble;
using c10::kFloat;
using c10::kHalf;
using c10::kInt;
using c10::kLong;
using c10::kShort;
}  // namespace at

#endif
