// C++ runtime support: operator new/delete over the heap slice, and the ABI
// hooks clang emits for static objects and pure virtual calls.
#include <new>
#include <q7/runtime.h>

namespace std {
const nothrow_t nothrow{};
}

void *operator new(size_t size) { return q7_heap_alloc_or_fail(size ? size : 1, 8); }
void *operator new[](size_t size) { return q7_heap_alloc_or_fail(size ? size : 1, 8); }
void *operator new(size_t size, const std::nothrow_t &) noexcept { return q7_heap_alloc(size ? size : 1, 8); }
void *operator new[](size_t size, const std::nothrow_t &) noexcept { return q7_heap_alloc(size ? size : 1, 8); }
void operator delete(void *ptr) noexcept { q7_heap_free(ptr); }
void operator delete[](void *ptr) noexcept { q7_heap_free(ptr); }
void operator delete(void *ptr, size_t) noexcept { q7_heap_free(ptr); }
void operator delete[](void *ptr, size_t) noexcept { q7_heap_free(ptr); }
void operator delete(void *ptr, const std::nothrow_t &) noexcept { q7_heap_free(ptr); }
void operator delete[](void *ptr, const std::nothrow_t &) noexcept { q7_heap_free(ptr); }

extern "C" {
// A launch runs one function and stops the core, so destructors of static
// objects never need to run: registration succeeds and is forgotten.
void *__dso_handle = &__dso_handle;
int __cxa_atexit(void (*)(void *), void *, void *) { return 0; }
int atexit(void (*)(void)) noexcept { return 0; }

void __cxa_pure_virtual() { q7_fail(Q7_STATUS_ABORT, "pure virtual function called"); }
void __cxa_deleted_virtual() { q7_fail(Q7_STATUS_ABORT, "deleted virtual function called"); }
}
