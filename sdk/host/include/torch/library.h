// torch::Library and TORCH_LIBRARY for q7's host shape programs and
// libraries. def() records each operator in a process-wide list: its
// schema, derived from the shape function's C++ signature as torch infers it
// (`Tensor _0, float _1`), the parameters' schema types, and a call that
// takes the arguments as typed values (src/shape_main.cpp parses them from
// text, src/shape_abi.cpp from the C ABI's words).
#pragma once

#include <torch/torch.h>

#include <cstdlib>
#include <functional>
#include <stdexcept>
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

// One argument of a call, held as the parameter's schema type wants it: a
// tensor, a float, an int, or a Scalar (an int or a float).
struct Value {
  at::Tensor tensor;
  double real = 0;
  int64_t integer = 0;
  bool is_integer = false;
};

template <typename T> T take(const Value& v);
template <> inline at::Tensor take<at::Tensor>(const Value& v) { return v.tensor; }
template <> inline double take<double>(const Value& v) { return v.real; }
template <> inline int64_t take<int64_t>(const Value& v) { return v.integer; }
template <> inline c10::Scalar take<c10::Scalar>(const Value& v) {
  return v.is_integer ? c10::Scalar(v.integer) : c10::Scalar(v.real);
}

struct Registration {
  std::string ns;
  std::string name;
  std::string schema;              // "name(Tensor _0, float _1) -> Tensor"
  std::vector<std::string> types;  // the parameters' schema types, in order
  std::function<at::Tensor(const std::vector<Value>&)> call;
};

inline std::vector<Registration>& registry() {
  static std::vector<Registration> list;
  return list;
}

template <typename... Args, size_t... I>
at::Tensor invoke(at::Tensor (*fn)(Args...), const std::vector<Value>& values, std::index_sequence<I...>) {
  return fn(take<std::decay_t<Args>>(values[I])...);
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
    q7host::registry().push_back({ns_, name, q7host::schema_of<Args...>(name),
                                  {q7host::SchemaType<std::decay_t<Args>>::name...},
                                  [fn](const std::vector<q7host::Value>& values) {
                                    if (values.size() != sizeof...(Args)) {
                                      throw std::invalid_argument("wrong number of arguments");
                                    }
                                    return q7host::invoke(fn, values, std::index_sequence_for<Args...>{});
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
