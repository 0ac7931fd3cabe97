// The tensor library (at::). Operator code usually includes <torch/torch.h>.
#ifndef Q7_ATEN_ATEN_H
#define Q7_ATEN_ATEN_H
#include <ATen/Functions.h>
#include <ATen/core/Tensor.h>
#endif
