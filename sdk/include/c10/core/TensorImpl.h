// Compatibility include: the q7 tensor has no separate TensorImpl.
#ifndef Q7_C10_TENSOR_IMPL_H
#define Q7_C10_TENSOR_IMPL_H
#include <ATen/core/Tensor.h>
#endif
