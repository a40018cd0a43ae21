/* Copyright 2026 The custody Authors.
 *
 * custody/c_api.h — custody's C ABI, for language bindings (C99; no C++ type
 * crosses it, no exception or abort leaves it).
 *
 *   custody_tensor x = custody_ones(sizes, 2, CUSTODY_FLOAT32);  // fresh: the caller owns it
 *   custody_tensor y = custody_add(x, x);                         // x borrowed, y fresh
 *   double total;
 *   if (!y || custody_item(custody_sum(y), &total)) puts(custody_last_error_message());
 *   custody_release(x);  custody_release(y);
 *
 * One library per build selection: the ownership policy and backend are the
 * ones --//policies:policy and --//backends:backend chose, as for C++ users
 * (custody_policy_name(), custody_backend_name()). Every rule below holds under
 * every policy; docs/c_api.md says what each policy adds for a binding.
 *
 * Handles. A `custody_tensor` is an opaque value naming one handle in this
 * library's handle table; it is never dereferenced, so a stale, forged or
 * foreign value is detected, not undefined behaviour: a handle of another
 * library or garbage is CUSTODY_ERROR_INVALID_ARGUMENT, a handle used after it
 * was released or disposed is CUSTODY_ERROR_LIFETIME. (A released handle's slot
 * is reused by later handles with a new generation; a stale handle is detected
 * until its slot has been reused 2^24 times.)
 *
 * Ownership, explicit in every signature:
 *  - Tensor arguments are BORROWED: the call never releases them; the caller
 *    keeps its handle.
 *  - Every custody_tensor a function returns is FRESH: a new handle the caller
 *    owns, made for this call, even when it names a tensor the caller already
 *    has a handle to (alias(), views, and the in-place ops, which return a
 *    fresh handle to `self` -- TorchSharp's rule: releasing it never releases
 *    the caller's `self`). NULL on error, with the thread's last error set.
 *  - custody_release() gives back one reference to a handle (custody_retain()
 *    adds one); at zero the handle is gone and its tensor reference given back
 *    the policy's way. custody_dispose() gives the handle back now, whatever
 *    its count, and is idempotent (a disposed or released handle is accepted);
 *    releasing a handle that is gone is CUSTODY_ERROR_LIFETIME.
 *  - Dispose scopes (TorchSharp's, per thread): while a scope is open on a
 *    thread, every fresh handle made on that thread belongs to the innermost
 *    one, and custody_scope_end() disposes what still belongs to it.
 *    custody_move_to_outer() hands a handle to the next scope out (or to no
 *    scope), custody_detach() to no scope, custody_dispose_everything_but()
 *    disposes the innermost scope's handles except those listed.
 *  - Any thread may release or dispose any handle, a runtime's finalizer thread
 *    included, even while another thread uses it in a call: the handle goes
 *    when the call returns, and the call sees the tensor it was given.
 *
 * Errors. A function that fails returns NULL (handles) or a non-zero
 * custody_status and sets this thread's last error, which stays until the next
 * failure or custody_clear_error(): its status (which custody::Error it was),
 * the absl::StatusCode number and the message naming the op, shapes and dtypes.
 */

#ifndef CUSTODY_CUSTODY_C_API_H_
#define CUSTODY_CUSTODY_C_API_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct custody_tensor_opaque* custody_tensor;

/* What failed: the custody::Error subclass (core/error.h). */
typedef enum custody_status {
  CUSTODY_OK = 0,
  CUSTODY_ERROR_SHAPE = 1,            /* ShapeError */
  CUSTODY_ERROR_DTYPE = 2,            /* DTypeError */
  CUSTODY_ERROR_LIFETIME = 3,         /* LifetimeError: use after release, double release, no scope */
  CUSTODY_ERROR_OUT_OF_MEMORY = 4,    /* OutOfMemoryError */
  CUSTODY_ERROR_DEVICE = 5,           /* DeviceError */
  CUSTODY_ERROR_INVALID_ARGUMENT = 6, /* InvalidArgument, a null or foreign handle */
  CUSTODY_ERROR_INTERNAL = 7          /* anything else (a bug: please report it) */
} custody_status;

/* Element types; the numbers are c10's ScalarType numbers, as in core/dtype.h. Functions take a
 * dtype as an int32_t, so that any number a binding passes is defined behaviour (one that names no
 * dtype is CUSTODY_ERROR_DTYPE). */
typedef enum custody_dtype {
  CUSTODY_UINT8 = 0,
  CUSTODY_INT8 = 1,
  CUSTODY_INT16 = 2,
  CUSTODY_INT32 = 3,
  CUSTODY_INT64 = 4,
  CUSTODY_FLOAT16 = 5,
  CUSTODY_FLOAT32 = 6,
  CUSTODY_FLOAT64 = 7,
  CUSTODY_BOOL = 11,
  CUSTODY_BFLOAT16 = 15
} custody_dtype;

/* ---- The library ------------------------------------------------------------------------- */

/* The ABI's version: bumped when a signature or a rule above changes. */
#define CUSTODY_C_API_VERSION 1
int32_t custody_c_api_version(void);
const char* custody_policy_name(void);  /* "tensor_ptr", "dispose", "scope", "gc" or "manual" */
const char* custody_backend_name(void); /* "onednn", "aten", ... */

/* ---- Errors (this thread's last) --------------------------------------------------------- */

custody_status custody_last_error(void);        /* CUSTODY_OK when none */
int32_t custody_last_error_code(void);          /* the absl::StatusCode number; 0 when none */
const char* custody_last_error_message(void);   /* "" when none; valid until this thread's next call */
void custody_clear_error(void);

/* ---- Handles ----------------------------------------------------------------------------- */

custody_status custody_retain(custody_tensor t);  /* one more reference to the handle */
custody_status custody_release(custody_tensor t); /* one fewer; at zero the handle is gone */
custody_status custody_dispose(custody_tensor t); /* the handle gone now; idempotent */
/* 1 when `t` names a live handle of this library, 0 otherwise (never an error). */
int32_t custody_is_live(custody_tensor t);

/* ---- Dispose scopes (this thread's) ------------------------------------------------------ */

custody_status custody_scope_begin(void);
custody_status custody_scope_end(void); /* disposes what still belongs to the innermost scope */
int32_t custody_scope_depth(void);
custody_status custody_move_to_outer(custody_tensor t);
custody_status custody_detach(custody_tensor t);
/* Disposes every handle of the innermost scope but the `n` in `keep` (which stay in it). */
custody_status custody_dispose_everything_but(const custody_tensor* keep, size_t n);

/* ---- What a garbage-collected runtime needs ---------------------------------------------- */

int64_t custody_live_handles(void);  /* handles not yet gone, every thread */
int64_t custody_live_tensors(void);  /* tensors (TensorImpls) alive in the library */
int64_t custody_bytes_in_use(void);  /* the backend's bytes in use: for a memory-pressure API */

/* ---- Creation (fresh handles) ------------------------------------------------------------ */

custody_tensor custody_empty(const int64_t* sizes, size_t ndim, int32_t dtype);
custody_tensor custody_zeros(const int64_t* sizes, size_t ndim, int32_t dtype);
custody_tensor custody_ones(const int64_t* sizes, size_t ndim, int32_t dtype);
custody_tensor custody_full(const int64_t* sizes, size_t ndim, double value, int32_t dtype);
custody_tensor custody_scalar(double value, int32_t dtype);
custody_tensor custody_arange(double start, double end, double step, int32_t dtype);
custody_tensor custody_randn(const int64_t* sizes, size_t ndim, int32_t dtype);
/* A copy of `nbytes` bytes at `data`: numel(sizes) elements of `dtype`, row-major. */
custody_tensor custody_from_data(const void* data, size_t nbytes, const int64_t* sizes, size_t ndim,
                                 int32_t dtype);

/* ---- Reading (borrowed) ------------------------------------------------------------------ */

int64_t custody_dim(custody_tensor t);                        /* -1 on error */
int64_t custody_numel(custody_tensor t);                      /* -1 on error */
int64_t custody_size(custody_tensor t, int64_t dim);          /* -1 on error; dim may be negative */
/* Writes min(dim, capacity) sizes to `out`; returns dim, -1 on error. */
int64_t custody_sizes(custody_tensor t, int64_t* out, size_t capacity);
int32_t custody_dtype_of(custody_tensor t);                   /* a custody_dtype, -1 on error */
int64_t custody_nbytes(custody_tensor t);                     /* -1 on error */
/* The value of a one-element tensor, as a double. */
custody_status custody_item(custody_tensor t, double* out);
/* Copies the tensor's elements (row-major, its dtype) to `out`, which holds `capacity` bytes. */
custody_status custody_copy_to(custody_tensor t, void* out, size_t capacity);

/* ---- Ops: tensor arguments borrowed, results fresh --------------------------------------- */

custody_tensor custody_add(custody_tensor a, custody_tensor b);
custody_tensor custody_sub(custody_tensor a, custody_tensor b);
custody_tensor custody_mul(custody_tensor a, custody_tensor b);
custody_tensor custody_div(custody_tensor a, custody_tensor b);
custody_tensor custody_matmul(custody_tensor a, custody_tensor b);
custody_tensor custody_eq(custody_tensor a, custody_tensor b);
custody_tensor custody_add_scalar(custody_tensor a, double s);
custody_tensor custody_mul_scalar(custody_tensor a, double s);
custody_tensor custody_neg(custody_tensor a);
custody_tensor custody_exp(custody_tensor a);
custody_tensor custody_log(custody_tensor a);
custody_tensor custody_tanh(custody_tensor a);
custody_tensor custody_sigmoid(custody_tensor a);
custody_tensor custody_relu(custody_tensor a);
custody_tensor custody_sum(custody_tensor a);  /* over every element */
custody_tensor custody_sum_dim(custody_tensor a, int64_t dim, int32_t keepdim);
custody_tensor custody_mean(custody_tensor a); /* over every element */
custody_tensor custody_argmax(custody_tensor a, int64_t dim, int32_t keepdim);
custody_tensor custody_softmax(custody_tensor a, int64_t dim);
custody_tensor custody_log_softmax(custody_tensor a, int64_t dim);
custody_tensor custody_to_dtype(custody_tensor a, int32_t dtype);

/* Views and handles to the same tensor (fresh handles) */
custody_tensor custody_alias(custody_tensor a);
custody_tensor custody_reshape(custody_tensor a, const int64_t* sizes, size_t ndim);
custody_tensor custody_transpose(custody_tensor a, int64_t dim0, int64_t dim1);
custody_tensor custody_flatten(custody_tensor a, int64_t start_dim, int64_t end_dim);
custody_tensor custody_contiguous(custody_tensor a);

/* In place on `self` (borrowed); each returns a fresh handle to `self`. */
custody_tensor custody_add_(custody_tensor self, custody_tensor other);
custody_tensor custody_mul_(custody_tensor self, custody_tensor other);
custody_tensor custody_mul_scalar_(custody_tensor self, double s);
custody_tensor custody_copy_(custody_tensor self, custody_tensor src);
custody_tensor custody_fill_(custody_tensor self, double value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CUSTODY_CUSTODY_C_API_H_ */
