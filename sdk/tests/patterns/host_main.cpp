// The host side of a pattern: `host PATTERN_FILE_IN OUT` reads raw
// little-endian float32 values, runs pattern_<PATTERN>() on them and writes
// the results. Built by crates/q7/tests/patterns_run.rs with
// -DPATTERN_FN=pattern_<name> beside the pattern's source.
#include <stdio.h>
#include <stdlib.h>

void PATTERN_FN(const float *in, float *out, long n);

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f) / 4;
  fseek(f, 0, SEEK_SET);
  float *in = (float *)malloc(n * 4 + 4), *out = (float *)calloc(n + 1, 4);
  if (fread(in, 4, n, f) != (size_t)n) {
    perror(argv[1]);
    return 1;
  }
  fclose(f);
  PATTERN_FN(in, out, n);
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, 4, n, f) != (size_t)n || fclose(f) != 0) {
    perror(argv[2]);
    return 1;
  }
  return 0;
}
