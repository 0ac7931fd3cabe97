// <neuron/neuron-utils.hpp>: the core's identity, the destination tensor of a
// multicore operator, and the TCM allocator (Neuron custom-operator API).
#ifndef Q7_NEURON_UTILS_HPP
#define Q7_NEURON_UTILS_HPP

#include <stddef.h>
#include <stdint.h>
#include <torch/torch.h>

// The output tensor the host passed for an operator that writes its result in
// place (multicore ops); ends the launch with an error when there is none.
torch::Tensor get_dst_tensor();

// This core's id, 0..get_cpu_count()-1, read from the PRID register.
uint32_t get_cpu_id();

// The number of cores running this operator (8 for SPMD, 1 for a single core).
uint32_t get_cpu_count();

namespace torch {
namespace neuron {
// Allocates from the core's 16 KiB TCM pool; nullptr when it does not fit.
void *tcm_malloc(size_t nbytes);
// Frees memory from tcm_malloc (nullptr is ignored).
void tcm_free(void *ptr);
}  // namespace neuron
}  // namespace torch

#endif
