// torchneuron/register.h: the host-side registration API of Neuron custom
// ops, written by q7 against the public libtorch API (torch 1.13 and newer).
//
//   torch::Tensor relu_fwd_shape(torch::Tensor t_in) {
//     return torch::zeros(t_in.sizes(), torch::kFloat);
//   }
//   NEURON_LIBRARY(my_ops, m) {
//     m.def("relu_forward", &relu_fwd_shape, "relu_forward");
//   }
//
// Each m.def registers the operator my_ops::relu_forward, its schema
// inferred from the shape function as torch does ("relu_forward(Tensor _0)
// -> Tensor _0"), with the shape function as its kernel. q7 also registers
// the shape function as my_ops::_q7_shape_relu_forward, so that it can still
// ask for the output's shape and dtype after it replaces the CPU kernel of
// my_ops::relu_forward with the simulator, and records the compute function
// name, which q7_neuron_ops() lists for the loader.
//
// The same header serves `q7 build --shape`, which compiles shape sources
// for the host against q7's minimal torch (sdk/host/include: torch::Library
// and TORCH_LIBRARY derive the schema there) instead of libtorch.
#pragma once

#include <torch/library.h>
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace torchneuron {
namespace detail {

// One list per shared library (hidden), even when several are loaded.
__attribute__((visibility("hidden"))) inline std::vector<std::pair<std::string, std::string>>& ops() {
  static std::vector<std::pair<std::string, std::string>> list;
  return list;
}

}  // namespace detail

class NeuronLibrary {
 public:
  NeuronLibrary(torch::Library& lib, const char* ns) : lib_(lib), ns_(ns) {}

  template <typename ShapeFn>
  NeuronLibrary& def(const char* op_name, ShapeFn&& shape_fn, const char* compute_fn_name) {
    lib_.def(op_name, shape_fn);
    std::string shape_name = std::string("_q7_shape_") + op_name;
    lib_.def(shape_name.c_str(), shape_fn);
    detail::ops().emplace_back(ns_ + "::" + op_name, compute_fn_name);
    return *this;
  }

 private:
  torch::Library& lib_;
  std::string ns_;
};

}  // namespace torchneuron

// "ns::op\tcompute_fn\n" per registered op, for q7's loader (through ctypes).
// Weak, so that several shape sources of one library may include this header.
extern "C" __attribute__((weak, visibility("default"))) const char* q7_neuron_ops() {
  static std::string text;
  text.clear();
  for (const auto& op : torchneuron::detail::ops()) text += op.first + "\t" + op.second + "\n";
  return text.c_str();
}

// The namespace is also spelled out as "q7-neuron-namespace:<ns>" in the
// library's bytes: q7 reads it before loading, because torch aborts the
// process when a second library registers a namespace (TORCH_LIBRARY).
#define NEURON_LIBRARY(ns, m)                                                         \
  __attribute__((used)) static const char q7_neuron_namespace_##ns[] =                \
      "q7-neuron-namespace:" #ns;                                                     \
  static void q7_neuron_library_init_##ns(torchneuron::NeuronLibrary&);               \
  TORCH_LIBRARY(ns, q7_torch_library_##ns) {                                          \
    torchneuron::NeuronLibrary neuron_library(q7_torch_library_##ns, #ns);            \
    q7_neuron_library_init_##ns(neuron_library);                                     \
  }                                                                                   \
  static void q7_neuron_library_init_##ns(torchneuron::NeuronLibrary& m)
