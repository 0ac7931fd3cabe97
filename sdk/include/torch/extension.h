// <torch/extension.h>: the same API as <torch/torch.h> on the device.
#ifndef Q7_TORCH_EXTENSION_H
#define Q7_TORCH_EXTENSION_H
#include <torch/torch.h>
#endif
