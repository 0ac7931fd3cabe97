// The main of a q7 host shape program: the op's shape sources, compiled for
// the host against sdk/host/include and torchneuron/register.h, linked with
// this file. q7 build lists the registrations; q7 run asks a shape function
// for the destination's shape and dtype.
//
//   PROGRAM list                 one line per NEURON_LIBRARY op:
//                                ns <TAB> op <TAB> compute_fn <TAB> schema
//   PROGRAM call NAME ARG...     prints "DTYPE D0,D1,..." of the op's output;
//                                NAME is ns::op, op or the compute function
//                                (exit status 3: no such op).
//                                A tensor ARG is DTYPE:D0,D1,... (f32:2,3;
//                                f32: is a 0-d tensor), any other a number.
#include <torch/library.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <map>
#include <sstream>

extern "C" __attribute__((weak)) const char* q7_neuron_ops();

namespace q7host {

namespace {

const std::map<std::string, c10::ScalarType>& dtype_names() {
  static const std::map<std::string, c10::ScalarType> names = {
      {"u8", c10::ScalarType::Byte},     {"i8", c10::ScalarType::Char},   {"i16", c10::ScalarType::Short},
      {"i32", c10::ScalarType::Int},     {"i64", c10::ScalarType::Long},  {"f16", c10::ScalarType::Half},
      {"f32", c10::ScalarType::Float},   {"f64", c10::ScalarType::Double}, {"bf16", c10::ScalarType::BFloat16},
      {"bool", c10::ScalarType::Bool}};
  return names;
}

std::string dtype_name(c10::ScalarType t) {
  for (const auto& entry : dtype_names()) {
    if (entry.second == t) return entry.first;
  }
  return "?";
}

int64_t parse_int(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0) throw std::invalid_argument("`" + text + "` is not an integer");
  return v;
}

double parse_double(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') throw std::invalid_argument("`" + text + "` is not a number");
  return v;
}

}  // namespace

c10::ScalarType parse_dtype(const std::string& name) {
  auto it = dtype_names().find(name);
  if (it == dtype_names().end()) throw std::invalid_argument("unknown dtype `" + name + "`");
  return it->second;
}

// One argument from its command-line text, as the parameter's schema type
// `type` wants it.
Value parse_value(const std::string& type, const std::string& text) {
  Value v;
  if (type == "Tensor") {
    size_t colon = text.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("`" + text + "` is not a tensor (DTYPE:D0,D1,...)");
    std::vector<int64_t> sizes;
    std::stringstream dims(text.substr(colon + 1));
    for (std::string d; std::getline(dims, d, ',');) sizes.push_back(parse_int(d));
    v.tensor = at::Tensor(sizes, parse_dtype(text.substr(0, colon)));
  } else if (type == "float") {
    v.real = parse_double(text);
  } else if (type == "int") {
    v.integer = parse_int(text);
  } else {  // Scalar: an int unless it is written as a float
    v.is_integer = text.find_first_of(".eEnN") == std::string::npos;
    if (v.is_integer) {
      v.integer = parse_int(text);
    } else {
      v.real = parse_double(text);
    }
  }
  return v;
}

}  // namespace q7host

namespace {

// "ns::op\tcompute_fn\n" lines from torchneuron/register.h.
std::vector<std::vector<std::string>> neuron_ops() {
  std::vector<std::vector<std::string>> ops;
  if (!q7_neuron_ops) return ops;
  std::stringstream lines(q7_neuron_ops());
  for (std::string line; std::getline(lines, line);) {
    size_t sep = line.find("::"), tab = line.find('\t');
    if (sep == std::string::npos || tab == std::string::npos) continue;
    ops.push_back({line.substr(0, sep), line.substr(sep + 2, tab - sep - 2), line.substr(tab + 1)});
  }
  return ops;
}

const q7host::Registration* find(const std::string& ns, const std::string& name) {
  for (const auto& r : q7host::registry()) {
    if (r.ns == ns && r.name == name) return &r;
  }
  return nullptr;
}

int list() {
  auto ops = neuron_ops();
  if (ops.empty()) {
    std::fprintf(stderr, "no NEURON_LIBRARY registrations (include \"torchneuron/register.h\" and m.def each op)\n");
    return 2;
  }
  for (const auto& op : ops) {
    const q7host::Registration* r = find(op[0], op[1]);
    if (!r) continue;
    std::printf("%s\t%s\t%s\t%s\n", op[0].c_str(), op[1].c_str(), op[2].c_str(), r->schema.c_str());
  }
  return 0;
}

// NAME is ns::op, op or the compute function's name.
const q7host::Registration* lookup(const std::string& name) {
  for (const auto& op : neuron_ops()) {
    if (name == op[0] + "::" + op[1] || name == op[1] || name == op[2]) return find(op[0], op[1]);
  }
  return nullptr;
}

int call(const std::string& qualified, const std::vector<std::string>& args) {
  const q7host::Registration* r = lookup(qualified);
  if (!r) {
    std::fprintf(stderr, "no op %s is registered\n", qualified.c_str());
    return 3;
  }
  if (args.size() != r->types.size()) {
    std::fprintf(stderr, "%s takes %zu arguments (%s), got %zu\n", qualified.c_str(), r->types.size(), r->schema.c_str(),
                 args.size());
    return 2;
  }
  std::vector<q7host::Value> values;
  for (size_t i = 0; i < args.size(); ++i) values.push_back(q7host::parse_value(r->types[i], args[i]));
  at::Tensor out = r->call(values);
  std::string dims;
  for (int64_t d : out.sizes()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  std::printf("%s %s\n", q7host::dtype_name(out.scalar_type()).c_str(), dims.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 1 && args[0] == "list") return list();
    if (args.size() >= 2 && args[0] == "call") return call(args[1], std::vector<std::string>(args.begin() + 2, args.end()));
    std::fprintf(stderr, "usage: %s list | call NAME ARG...\n", argv[0]);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
