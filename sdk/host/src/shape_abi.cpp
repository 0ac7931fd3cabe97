// The C ABI of a q7 host shape library: the op's shape sources, compiled
// for the host against sdk/host/include and torchneuron/register.h, linked
// with this file into a shared library that python/q7 loads with ctypes
// (no libtorch: torch learns the ops' schemas from Python).
//
//   int q7_shape_abi_version(void)    1; python/q7 refuses other versions
//   const char* q7_shape_list(void)   one line per NEURON_LIBRARY op:
//                                     ns <TAB> op <TAB> compute_fn <TAB> schema
//   int q7_shape_call(OP, WORDS, N_WORDS, REALS, N_REALS, OUT, OUT_LEN, MESSAGE, MESSAGE_LEN)
//       calls the shape function of op number OP (its line in the list) on
//       the arguments WORDS and REALS encode, per parameter in order:
//         a tensor:  its dtype code (c10::ScalarType's order in
//                    sdk/host/include/torch/torch.h), its rank, its sizes
//         an int:    -1, the value
//         a float:   -2, and the next of REALS
//         a Scalar:  -3 and the value (an int), or -4 and the next of REALS
//       and writes the result's dtype code, rank and sizes to OUT. Returns
//       0, or on failure writes a message to MESSAGE and returns what kind
//       of failure it was: 1 an index out of range (Python's IndexError),
//       2 a bad value (ValueError), 3 another error (RuntimeError), 4 a call
//       that does not fit the op (q7's own mistake: RuntimeError).
#include <torch/library.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>

extern "C" __attribute__((weak)) const char* q7_neuron_ops();

namespace {

struct Op {
  std::string ns, name, compute_fn;
  const q7host::Registration* registration;
};

// NEURON_LIBRARY's ops in their order, each with its registration; made on
// first use (after every static initializer of the library has run).
const std::vector<Op>& ops() {
  static const std::vector<Op> list = [] {
    std::vector<Op> found;
    if (!q7_neuron_ops) return found;
    std::stringstream lines(q7_neuron_ops());
    for (std::string line; std::getline(lines, line);) {
      size_t sep = line.find("::"), tab = line.find('\t');
      if (sep == std::string::npos || tab == std::string::npos) continue;
      Op op{line.substr(0, sep), line.substr(sep + 2, tab - sep - 2), line.substr(tab + 1), nullptr};
      for (const auto& r : q7host::registry()) {
        if (r.ns == op.ns && r.name == op.name) op.registration = &r;
      }
      if (op.registration) found.push_back(op);
    }
    return found;
  }();
  return list;
}

int fail(int kind, const char* what, char* message, int64_t message_len) {
  if (message && message_len > 0) std::snprintf(message, static_cast<size_t>(message_len), "%s", what);
  return kind;
}

// Reads the arguments of `r` from the words and reals (see the top).
std::vector<q7host::Value> decode(const q7host::Registration& r, const int64_t* words, int64_t n_words,
                                  const double* reals, int64_t n_reals) {
  std::vector<q7host::Value> values;
  int64_t w = 0, d = 0;
  auto word = [&]() {
    if (w >= n_words) throw std::length_error("too few argument words");
    return words[w++];
  };
  auto real = [&]() {
    if (d >= n_reals) throw std::length_error("too few argument reals");
    return reals[d++];
  };
  for (const std::string& type : r.types) {
    q7host::Value v;
    int64_t tag = word();
    if (type == "Tensor" && tag >= 0 && tag <= static_cast<int64_t>(c10::ScalarType::Bool)) {
      int64_t rank = word();
      if (rank < 0 || rank > n_words) throw std::length_error("bad tensor rank");
      std::vector<int64_t> sizes;
      for (int64_t i = 0; i < rank; ++i) sizes.push_back(word());
      v.tensor = at::Tensor(sizes, static_cast<c10::ScalarType>(tag));
    } else if (type == "int" && tag == -1) {
      v.integer = word();
    } else if (type == "float" && tag == -2) {
      v.real = real();
    } else if (type == "Scalar" && (tag == -3 || tag == -4)) {
      v.is_integer = tag == -3;
      if (v.is_integer) {
        v.integer = word();
      } else {
        v.real = real();
      }
    } else {
      throw std::length_error("argument of type " + type + " encoded as " + std::to_string(tag));
    }
    values.push_back(std::move(v));
  }
  if (w != n_words || d != n_reals) throw std::length_error("more argument words than parameters");
  return values;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int q7_shape_abi_version(void) { return 1; }

extern "C" __attribute__((visibility("default"))) const char* q7_shape_list(void) {
  static const std::string text = [] {
    std::string s;
    for (const Op& op : ops()) s += op.ns + "\t" + op.name + "\t" + op.compute_fn + "\t" + op.registration->schema + "\n";
    return s;
  }();
  return text.c_str();
}

extern "C" __attribute__((visibility("default"))) int q7_shape_call(int64_t op, const int64_t* words, int64_t n_words,
                                                                    const double* reals, int64_t n_reals, int64_t* out,
                                                                    int64_t out_len, char* message,
                                                                    int64_t message_len) {
  const std::vector<Op>& list = ops();
  if (op < 0 || op >= static_cast<int64_t>(list.size())) return fail(4, "no such op", message, message_len);
  std::vector<q7host::Value> values;
  try {
    values = decode(*list[op].registration, words, n_words, reals, n_reals);
  } catch (const std::exception& e) {
    return fail(4, e.what(), message, message_len);
  }
  try {
    at::Tensor result = list[op].registration->call(values);
    int64_t rank = result.dim();
    if (out_len < 2 || rank > out_len - 2) {
      std::string why = "returns a tensor of " + std::to_string(rank) + " dimensions, more than q7 takes";
      return fail(3, why.c_str(), message, message_len);
    }
    out[0] = static_cast<int64_t>(result.scalar_type());
    out[1] = rank;
    for (int64_t i = 0; i < rank; ++i) out[2 + i] = result.size(i);
    return 0;
  } catch (const std::out_of_range& e) {
    return fail(1, e.what(), message, message_len);
  } catch (const std::invalid_argument& e) {
    return fail(2, e.what(), message, message_len);
  } catch (const std::exception& e) {
    return fail(3, e.what(), message, message_len);
  } catch (...) {
    return fail(3, "an exception that is not a std::exception", message, message_len);
  }
}
