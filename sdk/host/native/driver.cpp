// The host driver of `q7 run --native`: reads a launch file q7 wrote, runs
// the op's function once per core in the order the file gives (cores share
// the tensors, each has its own TCM pool) and writes the output tensor.
//
// Launch file, one item per line (numbers decimal; doubles as their 64 bits
// in hex so they arrive exactly):
//   function NAME
//   cores N
//   order C0 C1 ...            the cores, in the order they run
//   sdk_checks 0|1
//   heap BYTES                 the device heap of each core (0: no limit)
//   tensor DTYPE RANK D0 .. FILE   raw little-endian C-order elements
//   double BITS | scalar BITS | int N
//   dst DTYPE RANK D0 ..       the destination tensor (zero-filled)
//   result FILE                written as "DTYPE RANK D0 ..\n" + raw elements
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <q7/runtime.h>

#include "q7_native.h"

namespace {

[[noreturn]] void bad_launch(const char *what, const char *detail) {
  fprintf(stderr, "q7-native: bad launch file: %s%s\n", what, detail);
  exit(Q7_STATUS_BAD_LAUNCH);
}

// Reads "DTYPE RANK D0 .." from `text` into a new zero-filled descriptor
// with its data; returns where the text after the sizes starts.
char *read_tensor(char *text, q7_tensor_desc **out) {
  char *end = text;
  unsigned long dtype = strtoul(end, &end, 10);
  unsigned long rank = strtoul(end, &end, 10);
  if (rank > Q7_MAX_RANK || !c10::isValidScalarType((c10::ScalarType)dtype)) bad_launch("tensor: ", text);
  q7_tensor_desc *d = (q7_tensor_desc *)calloc(1, sizeof(q7_tensor_desc));
  d->dtype = (uint32_t)dtype;
  d->rank = (uint32_t)rank;
  int64_t numel = 1;
  for (unsigned long i = 0; i < rank; ++i) {
    d->sizes[i] = strtoll(end, &end, 10);
    numel *= d->sizes[i];
  }
  int64_t stride = 1;
  for (int i = (int)rank - 1; i >= 0; --i) {
    d->strides[i] = stride;
    stride *= d->sizes[i];
  }
  d->numel = numel;
  size_t bytes = (size_t)numel * c10::elementSize((c10::ScalarType)dtype);
  // Exactly the tensor's bytes, so AddressSanitizer sees a read past its end.
  d->data = (q7_addr)calloc(bytes ? bytes : 1, 1);
  *out = d;
  while (*end == ' ') ++end;
  return end;
}

void read_file_into(const char *path, q7_tensor_desc *d) {
  size_t bytes = (size_t)d->numel * c10::elementSize((c10::ScalarType)d->dtype);
  FILE *f = fopen(path, "rb");
  if (!f || fread((void *)d->data, 1, bytes, f) != bytes) bad_launch("cannot read ", path);
  fclose(f);
}

void write_result(const char *path, const torch::Tensor &t) {
  FILE *f = fopen(path, "wb");
  if (!f) bad_launch("cannot write ", path);
  fprintf(f, "%d %d", (int)t.scalar_type(), (int)t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) fprintf(f, " %lld", (long long)t.size(i));
  fprintf(f, "\n");
  // Row-major order whatever the strides (tensor_to_tcm walks it so).
  torch::Tensor flat = t.contiguous();
  fwrite(flat.data_ptr(), 1, flat.nbytes(), f);
  if (fclose(f) != 0) bad_launch("cannot write ", path);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) bad_launch("usage: q7-native LAUNCH-FILE", "");
  FILE *spec = fopen(argv[1], "r");
  if (!spec) bad_launch("cannot open ", argv[1]);
  char line[4096], function[256] = "", result_path[4096] = "";
  uint32_t cores = 1, order[8] = {0}, ordered = 0;
  bool sdk_checks = true;
  q7_native_arg args[64];
  uint32_t arg_count = 0;
  q7_tensor_desc *dst = nullptr;
  while (fgets(line, sizeof line, spec)) {
    line[strcspn(line, "\n")] = 0;
    char *rest = strchr(line, ' ');
    if (!rest) continue;
    *rest++ = 0;
    if (!strcmp(line, "function")) {
      snprintf(function, sizeof function, "%s", rest);
    } else if (!strcmp(line, "cores")) {
      cores = (uint32_t)strtoul(rest, nullptr, 10);
      if (cores < 1 || cores > 8) bad_launch("cores: ", rest);
    } else if (!strcmp(line, "order")) {
      char *p = rest;
      while (*p && ordered < 8) order[ordered++] = (uint32_t)strtoul(p, &p, 10);
    } else if (!strcmp(line, "sdk_checks")) {
      sdk_checks = atoi(rest) != 0;
    } else if (!strcmp(line, "heap")) {
      q7_native_set_heap_limit(strtoull(rest, nullptr, 10));
    } else if (!strcmp(line, "dst")) {
      read_tensor(rest, &dst);
    } else if (!strcmp(line, "result")) {
      snprintf(result_path, sizeof result_path, "%s", rest);
    } else if (arg_count < 64) {
      q7_native_arg &a = args[arg_count++];
      memset(&a, 0, sizeof a);
      if (!strcmp(line, "tensor")) {
        a.kind = Q7_ARG_TENSOR;
        char *path = read_tensor(rest, &a.tensor);
        read_file_into(path, a.tensor);
      } else if (!strcmp(line, "int")) {
        a.kind = Q7_ARG_INT64;
        a.i64 = strtoll(rest, nullptr, 10);
      } else if (!strcmp(line, "double") || !strcmp(line, "scalar")) {
        a.kind = line[0] == 'd' ? Q7_ARG_DOUBLE : Q7_ARG_SCALAR;
        uint64_t bits = strtoull(rest, nullptr, 16);
        memcpy(&a.f64, &bits, sizeof bits);
      } else {
        bad_launch("unknown item ", line);
      }
    }
  }
  fclose(spec);
  const q7_native_op *op = nullptr;
  for (unsigned i = 0; i < q7_native_op_count; ++i)
    if (!strcmp(q7_native_ops[i].name, function)) op = &q7_native_ops[i];
  if (!op) bad_launch("no such function: ", function);
  if (ordered != cores) bad_launch("order does not list every core", "");

  torch::Tensor output;  // core 0's result
  for (uint32_t k = 0; k < cores; ++k) {
    uint32_t id = order[k];
    q7_native_begin_core(id, cores, args, arg_count, dst, sdk_checks);
    torch::Tensor returned = op->call();
    if (id == 0) output = returned;
    q7_native_end_core();
  }
  if (!output.defined() && dst) output = torch::Tensor(dst);
  fflush(stdout);
  if (result_path[0] && output.defined()) write_result(result_path, output);
  return 0;
}
