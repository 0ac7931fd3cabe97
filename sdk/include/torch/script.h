// <torch/script.h>: the same API as <torch/torch.h> on the device.
#ifndef Q7_TORCH_SCRIPT_H
#define Q7_TORCH_SCRIPT_H
#include <torch/torch.h>
#endif
