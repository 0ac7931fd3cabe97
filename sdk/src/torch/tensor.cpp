// at::Tensor handles, device-tensor allocation and the data-movement members.
//
// A device-allocated descriptor (flags bit 0) keeps its reference count in the
// low word of `reserved`; a view's descriptor keeps the address of the
// descriptor owning its data in the high word, and holds a reference to it.
#include <string.h>
#include "tensor_internal.h"

namespace at {
namespace {

bool device_allocated(const q7_tensor_desc *d) { return d && (d->flags & Q7_TENSOR_DEVICE_ALLOCATED); }

// A view's owner: the high word of `reserved` on the device, a field of its
// own in the host build (pointers are wider there).
q7_tensor_desc *owner_of(const q7_tensor_desc *d) {
#ifdef Q7_NATIVE
  return (q7_tensor_desc *)d->host_owner;
#else
  return (q7_tensor_desc *)(uintptr_t)(uint32_t)(d->reserved >> 32);
#endif
}

void set_owner(q7_tensor_desc *d, const q7_tensor_desc *owner) {
#ifdef Q7_NATIVE
  d->host_owner = (uintptr_t)owner;
#else
  d->reserved = (uint64_t)(uint32_t)(uintptr_t)owner << 32;
#endif
}

void retain(q7_tensor_desc *d) {
  if (device_allocated(d)) d->reserved += 1;
}

void release(q7_tensor_desc *d) {
  while (device_allocated(d)) {
    uint32_t count = (uint32_t)d->reserved;
    if (count > 1) {
      d->reserved -= 1;
      return;
    }
    q7_tensor_desc *base = owner_of(d);
    q7_heap_free(d);
    d = base;  // a view drops its reference on the owner
  }
}

void set_contiguous_strides(q7_tensor_desc *d) {
  int64_t stride = 1;
  for (int i = (int)d->rank - 1; i >= 0; --i) {
    d->strides[i] = stride;
    stride *= d->sizes[i];
  }
}

int64_t checked_numel(IntArrayRef sizes, const char *op) {
  if (sizes.size() > Q7_MAX_RANK) q7_fail(Q7_STATUS_ABORT, "%s: rank %u exceeds %d", op, (unsigned)sizes.size(), Q7_MAX_RANK);
  int64_t numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) q7_fail(Q7_STATUS_ABORT, "%s: negative size in dimension %u", op, (unsigned)i);
    if (sizes[i] != 0 && numel > INT64_MAX / sizes[i])
      q7_fail(Q7_STATUS_ABORT, "%s: the sizes' product overflows int64 at dimension %u", op, (unsigned)i);
    numel *= sizes[i];
  }
  return numel;
}

}  // namespace

Tensor::Tensor(q7_tensor_desc *desc) : desc_(desc) { retain(desc_); }
Tensor::Tensor(const Tensor &other) : desc_(other.desc_) { retain(desc_); }
Tensor::~Tensor() { release(desc_); }

Tensor &Tensor::operator=(const Tensor &other) & {
  retain(other.desc_);
  release(desc_);
  desc_ = other.desc_;
  return *this;
}

Tensor &Tensor::operator=(Tensor &&other) & {
  if (this != &other) {
    release(desc_);
    desc_ = other.desc_;
    other.desc_ = nullptr;
  }
  return *this;
}

bool Tensor::is_contiguous() const { return q7::is_contiguous(*desc_); }

void Tensor::check_accessor(size_t rank, int dtype, size_t elem_size) const {
  q7_check_element_type(desc_, dtype, elem_size, "accessor");
  if (rank != desc_->rank && q7_sdk_checks())
    q7_fail(Q7_STATUS_ABORT, "accessor<T, %u>() on a tensor of rank %u", (unsigned)rank, (unsigned)desc_->rank);
}

void q7_check_element_type(const q7_tensor_desc *desc, int dtype, size_t elem_size, const char *what) {
  if (!desc) q7_fail(Q7_STATUS_ABORT, "%s on an undefined tensor", what);
  if ((int)desc->dtype != dtype && q7_sdk_checks())
    q7_fail(Q7_STATUS_ABORT, "%s<%s> on a tensor of dtype %s (%u-byte elements requested)", what,
            c10::toString((ScalarType)dtype), c10::toString((ScalarType)desc->dtype), (unsigned)elem_size);
}

namespace {
// Copies count elements between flat tensor positions [offset, offset+count)
// and a packed buffer; to_buffer selects the direction.
void copy_flat(const q7_tensor_desc *desc, char *buffer, size_t offset, size_t count, size_t elem_size,
               bool to_buffer, const char *what) {
  if (!desc) q7_fail(Q7_STATUS_ABORT, "%s on an undefined tensor", what);
  size_t tensor_elem = c10::elementSize((ScalarType)desc->dtype);
  if (elem_size != tensor_elem && q7_sdk_checks())
    q7_fail(Q7_STATUS_ABORT, "%s: %u-byte elements requested, tensor has %u-byte %s elements", what,
            (unsigned)elem_size, (unsigned)tensor_elem, c10::toString((ScalarType)desc->dtype));
  if ((offset > (size_t)desc->numel || count > (size_t)desc->numel - offset) && q7_sdk_checks())
    q7_fail(Q7_STATUS_ABORT, "%s: elements [%u, %u) outside a tensor of %u elements", what, (unsigned)offset,
            (unsigned)(offset + count), (unsigned)desc->numel);
  char *data = (char *)(uintptr_t)desc->data;
  if (q7::is_contiguous(*desc)) {
    if (to_buffer)
      memcpy(buffer, data + offset * elem_size, count * elem_size);
    else
      memcpy(data + offset * elem_size, buffer, count * elem_size);
    return;
  }
  for (size_t k = 0; k < count; ++k) {
    size_t flat = offset + k;
    ptrdiff_t at = 0;
    for (int d = (int)desc->rank - 1; d >= 0; --d) {
      size_t size = (size_t)desc->sizes[d];
      at += (ptrdiff_t)(flat % size) * (ptrdiff_t)desc->strides[d];
      flat /= size;
    }
    char *element = data + at * (ptrdiff_t)elem_size;
    if (to_buffer)
      memcpy(buffer + k * elem_size, element, elem_size);
    else
      memcpy(element, buffer + k * elem_size, elem_size);
  }
}
}  // namespace

void q7_tensor_to_tcm(const q7_tensor_desc *desc, void *tcm, size_t offset, size_t count, size_t elem_size) {
  copy_flat(desc, (char *)tcm, offset, count, elem_size, true, "tensor_to_tcm");
}

void q7_tcm_to_tensor(const q7_tensor_desc *desc, const void *tcm, size_t offset, size_t count,
                      size_t elem_size) {
  copy_flat(desc, (char *)tcm, offset, count, elem_size, false, "tcm_to_tensor");
}

namespace q7 {

Tensor allocate(IntArrayRef sizes, ScalarType dtype) {
  if (!c10::isValidScalarType(dtype)) q7_fail(Q7_STATUS_ABORT, "unsupported dtype %d", (int)dtype);
  int64_t numel = checked_numel(sizes, "tensor factory");
  // Sizes are 32 bits on the device: refuse what would wrap to a small block.
  uint64_t elem = c10::elementSize(dtype);
  if ((uint64_t)numel > (UINT32_MAX - sizeof(q7_tensor_desc)) / elem)
    q7_fail(Q7_STATUS_ABORT, "tensor factory: %lld elements of %u bytes exceed the 4 GiB address space",
            (long long)numel, (unsigned)elem);
  size_t bytes = (size_t)numel * (size_t)elem;
  char *block = (char *)q7_heap_alloc_or_fail(sizeof(q7_tensor_desc) + bytes, 16);
  q7_tensor_desc *d = (q7_tensor_desc *)block;
  memset(d, 0, sizeof *d);
  d->dtype = (uint32_t)dtype;
  d->rank = (uint32_t)sizes.size();
  d->data = (q7_addr)(uintptr_t)(block + sizeof(q7_tensor_desc));
  d->flags = Q7_TENSOR_DEVICE_ALLOCATED;
  for (size_t i = 0; i < sizes.size(); ++i) d->sizes[i] = sizes[i];
  set_contiguous_strides(d);
  d->numel = numel;
  return Tensor(d);
}

Tensor allocate_like(const q7_tensor_desc &shape, ScalarType dtype) {
  return allocate(IntArrayRef(shape.sizes, shape.rank), dtype);
}

bool is_contiguous(const q7_tensor_desc &d) {
  int64_t expected = 1;
  for (int i = (int)d.rank - 1; i >= 0; --i) {
    if (d.sizes[i] != 1 && d.strides[i] != expected) return false;
    expected *= d.sizes[i];
  }
  return true;
}

bool same_shape(const q7_tensor_desc &a, const q7_tensor_desc &b) {
  if (a.rank != b.rank) return false;
  for (uint32_t i = 0; i < a.rank; ++i)
    if (a.sizes[i] != b.sizes[i]) return false;
  return true;
}

void check_defined(const Tensor &t, const char *op) {
  if (!t.defined()) q7_fail(Q7_STATUS_ABORT, "%s: undefined tensor", op);
}

void check_same_shape(const Tensor &a, const Tensor &b, const char *op) {
  check_defined(a, op);
  check_defined(b, op);
  if (!same_shape(*a.q7_desc(), *b.q7_desc()))
    q7_fail(Q7_STATUS_ABORT, "%s: shapes differ (rank %u vs %u, %u vs %u elements); no broadcasting", op,
            (unsigned)a.dim(), (unsigned)b.dim(), (unsigned)a.numel(), (unsigned)b.numel());
}

}  // namespace q7

Tensor &Tensor::fill_(const Scalar &value) const {
  q7::check_defined(*this, "fill_");
  const q7_tensor_desc *descs[1] = {desc_};
  ScalarType t = scalar_type();
  if (c10::isIntegralType(t, true)) {
    int64_t v = value.toLong();
    if (t == ScalarType::Bool) v = value.toBool();
    q7::walk(descs, [&](char **p) { q7::store<int64_t>(p[0], t, v); });
  } else if (t == ScalarType::Double) {
    double v = value.toDouble();
    q7::walk(descs, [&](char **p) { q7::store<double>(p[0], t, v); });
  } else {
    float v = value.toFloat();
    if (t == ScalarType::Float && is_contiguous()) {
      float *data = (float *)data_ptr();
      for (int64_t i = 0, n = numel(); i < n; ++i) data[i] = v;
    } else {
      q7::walk(descs, [&](char **p) { q7::store<float>(p[0], t, v); });
    }
  }
  return const_cast<Tensor &>(*this);
}

Tensor &Tensor::zero_() const { return fill_(0); }

Tensor &Tensor::copy_(const Tensor &src) const {
  q7::check_same_shape(*this, src, "copy_");
  ScalarType to = scalar_type(), from = src.scalar_type();
  if (to == from && is_contiguous() && src.is_contiguous()) {
    memmove(data_ptr(), src.data_ptr(), nbytes());
    return const_cast<Tensor &>(*this);
  }
  const q7_tensor_desc *descs[2] = {desc_, src.q7_desc()};
  if (to == from) {
    size_t size = element_size();
    q7::walk(descs, [&](char **p) { memcpy(p[0], p[1], size); });
  } else if (c10::isIntegralType(to, true) && c10::isIntegralType(from, true)) {
    q7::walk(descs, [&](char **p) { q7::store<int64_t>(p[0], to, q7::load<int64_t>(p[1], from)); });
  } else if (to == ScalarType::Double || from == ScalarType::Double || to == ScalarType::Long ||
             from == ScalarType::Long) {
    q7::walk(descs, [&](char **p) { q7::store<double>(p[0], to, q7::load<double>(p[1], from)); });
  } else {
    q7::walk(descs, [&](char **p) { q7::store<float>(p[0], to, q7::load<float>(p[1], from)); });
  }
  return const_cast<Tensor &>(*this);
}

Tensor Tensor::clone() const {
  Tensor out = q7::allocate(sizes(), scalar_type());
  out.copy_(*this);
  return out;
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::to(ScalarType dtype) const {
  if (dtype == scalar_type()) return *this;
  Tensor out = q7::allocate(sizes(), dtype);
  out.copy_(*this);
  return out;
}

Tensor Tensor::view(IntArrayRef new_sizes) const {
  q7::check_defined(*this, "view");
  int64_t known = 1;
  int infer = -1;
  if (new_sizes.size() > Q7_MAX_RANK) q7_fail(Q7_STATUS_ABORT, "view: rank %u too large", (unsigned)new_sizes.size());
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] == -1 && infer < 0)
      infer = (int)i;
    else
      known *= new_sizes[i];
  }
  int64_t inferred = infer >= 0 && known ? numel() / known : 0;
  if ((infer >= 0 ? known * inferred : known) != numel())
    q7_fail(Q7_STATUS_ABORT, "view/reshape: %u elements do not fit the requested shape", (unsigned)numel());
  if (!is_contiguous()) q7_fail(Q7_STATUS_ABORT, "view of a non-contiguous tensor; use reshape");
  q7_tensor_desc *d = (q7_tensor_desc *)q7_heap_alloc_or_fail(sizeof(q7_tensor_desc), 8);
  memset(d, 0, sizeof *d);
  d->dtype = desc_->dtype;
  d->rank = (uint32_t)new_sizes.size();
  d->data = desc_->data;
  d->flags = Q7_TENSOR_DEVICE_ALLOCATED;
  for (size_t i = 0; i < new_sizes.size(); ++i) d->sizes[i] = (int)i == infer ? inferred : new_sizes[i];
  set_contiguous_strides(d);
  d->numel = numel();
  if (device_allocated(desc_)) {
    retain(desc_);
    set_owner(d, desc_);
  }
  return Tensor(d);
}

Tensor Tensor::reshape(IntArrayRef new_sizes) const { return contiguous().view(new_sizes); }

Tensor Tensor::flatten() const {
  int64_t n = numel();
  return reshape(IntArrayRef(&n, 1));
}

Scalar Tensor::item() const {
  q7::check_defined(*this, "item");
  if (numel() != 1) q7_fail(Q7_STATUS_ABORT, "item() on a tensor of %u elements", (unsigned)numel());
  const char *p = (const char *)data_ptr();
  ScalarType t = scalar_type();
  if (t == ScalarType::Bool) return Scalar(*(const uint8_t *)p != 0);
  if (c10::isIntegralType(t, false)) return Scalar((long long)q7::load<int64_t>(p, t));
  return Scalar(q7::load<double>(p, t));
}

// --- factories ---

static ScalarType dtype_of(TensorOptions options) { return options.dtype(); }

Tensor empty(IntArrayRef size, TensorOptions options) { return q7::allocate(size, dtype_of(options)); }

Tensor zeros(IntArrayRef size, TensorOptions options) {
  Tensor t = empty(size, options);
  memset(t.data_ptr(), 0, t.nbytes());  // all-zero bits is 0 in every dtype
  return t;
}

Tensor ones(IntArrayRef size, TensorOptions options) { return full(size, 1, options); }

Tensor full(IntArrayRef size, const Scalar &fill_value, TensorOptions options) {
  Tensor t = empty(size, options);
  t.fill_(fill_value);
  return t;
}

Tensor eye(int64_t n, TensorOptions options) { return eye(n, n, options); }

Tensor eye(int64_t n, int64_t m, TensorOptions options) {
  int64_t sizes[2] = {n, m};
  Tensor t = zeros(IntArrayRef(sizes, 2), options);
  char *data = (char *)t.data_ptr();
  size_t elem = t.element_size();
  for (int64_t i = 0; i < n && i < m; ++i) q7::store<int32_t>(data + (size_t)(i * m + i) * elem, t.scalar_type(), 1);
  return t;
}

static TensorOptions like_options(const Tensor &self, TensorOptions options) {
  return options.has_dtype() ? options : TensorOptions(self.scalar_type());
}

Tensor empty_like(const Tensor &self, TensorOptions options) { return empty(self.sizes(), like_options(self, options)); }
Tensor zeros_like(const Tensor &self, TensorOptions options) { return zeros(self.sizes(), like_options(self, options)); }
Tensor ones_like(const Tensor &self, TensorOptions options) { return ones(self.sizes(), like_options(self, options)); }
Tensor full_like(const Tensor &self, const Scalar &fill_value, TensorOptions options) {
  return full(self.sizes(), fill_value, like_options(self, options));
}

Tensor arange(const Scalar &end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(const Scalar &start, const Scalar &end, const Scalar &step, TensorOptions options) {
  bool integral = start.isIntegral(true) && end.isIntegral(true) && step.isIntegral(true);
  ScalarType dtype = options.has_dtype() ? options.dtype() : integral ? ScalarType::Long : ScalarType::Float;
  double s = start.toDouble(), e = end.toDouble(), d = step.toDouble();
  if (d == 0) q7_fail(Q7_STATUS_ABORT, "arange: step must be nonzero");
  double span = (e - s) / d;
  int64_t n = span > 0 ? (int64_t)span : 0;
  if ((double)n < span) n += 1;  // ceil
  Tensor t = empty(IntArrayRef(&n, 1), dtype);
  char *data = (char *)t.data_ptr();
  size_t elem = t.element_size();
  for (int64_t i = 0; i < n; ++i) {
    if (integral)
      q7::store<int64_t>(data + (size_t)i * elem, dtype, start.toLong() + i * step.toLong());
    else
      q7::store<double>(data + (size_t)i * elem, dtype, s + (double)i * d);
  }
  return t;
}

Tensor from_blob(void *data, IntArrayRef sizes, TensorOptions options) {
  int64_t numel = checked_numel(sizes, "from_blob");
  q7_tensor_desc *d = (q7_tensor_desc *)q7_heap_alloc_or_fail(sizeof(q7_tensor_desc), 8);
  memset(d, 0, sizeof *d);
  d->dtype = (uint32_t)options.dtype();
  d->rank = (uint32_t)sizes.size();
  d->data = (q7_addr)(uintptr_t)data;
  d->flags = Q7_TENSOR_DEVICE_ALLOCATED;  // the descriptor is ours; the data is not
  for (size_t i = 0; i < sizes.size(); ++i) d->sizes[i] = sizes[i];
  set_contiguous_strides(d);
  d->numel = numel;
  return Tensor(d);
}

}  // namespace at
