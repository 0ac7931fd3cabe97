/* Host side of the QEMU comparison: the same prints through glibc. */
void run_prints(void);
int main(void) {
  run_prints();
  return 0;
}
