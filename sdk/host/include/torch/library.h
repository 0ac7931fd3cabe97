// torch::Library and TORCH_LIBRARY for q7's host shape programs. def()
// records each operator in a process-wide list: its schema, derived from the
// shape function's C++ signature as torch infers it (`Tensor _0, float _1`),
// and a call that takes the arguments as text (src/shape_main.cpp).
#pragma once

#include <torch/torch.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace q7host {

// The schema type of a shape-function parameter; anything else is refused.
template <typename T>
struct SchemaType {
  static_assert(sizeof(T) == 0,
                "q7: a shape function's parameters must be torch::Tensor, double, int64_t or torch::Scalar");
};
template <> struct SchemaType<at::Tensor> { static constexpr const char* name = "Tensor"; };
template <> struct SchemaType<double> { static constexpr const char* name = "float"; };
template <> struct SchemaType<int64_t> { static constexpr const char* name = "int"; };
template <> struct SchemaType<c10::Scalar> { static constexpr const char* name = "Scalar"; };

c10::ScalarType parse_dtype(const std::string& name);

// Parses one argument from its command-line text (src/shape_main.cpp says the forms).
template <typename T> T parse_arg(const std::string& text);
template <> at::Tensor parse_arg<at::Tensor>(const std::string& text);
template <> double parse_arg<double>(const std::string& text);
template <> int64_t parse_arg<int64_t>(const std::string& text);
template <> c10::Scalar parse_arg<c10::Scalar>(const std::string& text);

struct Registration {
  std::string ns;
  std::string name;
  std::string schema;  // "name(Tensor _0, float _1) -> Tensor"
  size_t arity;
  std::function<at::Tensor(const std::vector<std::string>&)> call;
};

inline std::vector<Registration>& registry() {
  static std::vector<Registration> list;
  return list;
}

template <typename... Args, size_t... I>
at::Tensor invoke(at::Tensor (*fn)(Args...), const std::vector<std::string>& text, std::index_sequence<I...>) {
  return fn(parse_arg<std::decay_t<Args>>(text[I])...);
}

template <typename... Args>
std::string schema_of(const std::string& name) {
  const char* types[] = {SchemaType<std::decay_t<Args>>::name..., nullptr};
  std::string s = name + "(";
  for (size_t i = 0; i < sizeof...(Args); ++i) {
    if (i) s += ", ";
    s += std::string(types[i]) + " _" + std::to_string(i);
  }
  return s + ") -> Tensor";
}

}  // namespace q7host

namespace torch {

class Library {
 public:
  explicit Library(std::string ns) : ns_(std::move(ns)) {}

  template <typename... Args>
  Library& def(const char* name, at::Tensor (*fn)(Args...)) {
    q7host::registry().push_back({ns_, name, q7host::schema_of<Args...>(name), sizeof...(Args),
                                  [fn](const std::vector<std::string>& text) {
                                    return q7host::invoke(fn, text, std::index_sequence_for<Args...>{});
                                  }});
    return *this;
  }

  // Anything else (a lambda, a schema string, another return type) is refused.
  template <typename Fn>
  Library& def(const char*, Fn&&) {
    static_assert(sizeof(Fn) == 0, "q7: m.def takes a pointer to a shape function that returns torch::Tensor");
    return *this;
  }

 private:
  std::string ns_;
};

namespace detail {
struct TorchLibraryInit {
  TorchLibraryInit(const char* ns, void (*init)(Library&)) {
    Library lib(ns);
    init(lib);
  }
};
}  // namespace detail

}  // namespace torch

#define TORCH_LIBRARY(ns, m)                                                                      \
  static void TORCH_LIBRARY_init_##ns(torch::Library&);                                          \
  static const torch::detail::TorchLibraryInit TORCH_LIBRARY_static_init_##ns(#ns,                \
                                                                            &TORCH_LIBRARY_init_##ns); \
  void TORCH_LIBRARY_init_##ns(torch::Library& m)
