/* Copyright 2026 The custody Authors.
 *
 * The C ABI's conformance suite (custody/c_api.h), in C99, built once per
 * policy and host backend (custody/BUILD): values against hand-computed
 * answers; every error a typed status with a message naming the op; every
 * misuse of a handle (double release, use after release, null, forged, another
 * library's) an error code; fresh handles for every result, in-place ops
 * included; retain/release/dispose; dispose scopes as TorchSharp's; releases
 * from another thread, racing a call on the same handle; and nothing left when
 * the test has given everything back.
 */

#include "custody/c_api.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_failures = 0;

#define CHECK(cond)                                                                             \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error %d: %s)\n", __FILE__, __LINE__, #cond, \
              (int)custody_last_error(), custody_last_error_message());                        \
      ++g_failures;                                                                             \
    }                                                                                           \
  } while (0)

/* The status of the last error is `status` and its message contains `part`. */
#define CHECK_ERROR(status, part)                                                   \
  do {                                                                              \
    CHECK(custody_last_error() == (status));                                        \
    CHECK(strstr(custody_last_error_message(), (part)) != NULL);                    \
    custody_clear_error();                                                          \
  } while (0)

static double item(custody_tensor t) {
  double v = NAN;
  CHECK(custody_item(t, &v) == CUSTODY_OK);
  return v;
}

/* Sum of all elements as a double, the sum handle released. */
static double total(custody_tensor t) {
  custody_tensor s = custody_sum(t);
  double v;
  CHECK(s != NULL);
  v = item(s);
  CHECK(custody_release(s) == CUSTODY_OK);
  return v;
}

static void test_library(void) {
  CHECK(custody_c_api_version() == CUSTODY_C_API_VERSION);
  CHECK(strlen(custody_policy_name()) > 0);
  CHECK(strlen(custody_backend_name()) > 0);
  CHECK(custody_last_error() == CUSTODY_OK);
  CHECK(strcmp(custody_last_error_message(), "") == 0);
}

static void test_values(void) {
  const int64_t sizes[2] = {2, 3};
  const float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t longs[3] = {7, -8, 9};
  const int64_t three = 3;
  float out[6] = {0};
  int64_t longs_out[3] = {0};
  int64_t got_sizes[4] = {0};
  custody_tensor a = custody_from_data(data, sizeof data, sizes, 2, CUSTODY_FLOAT32);
  custody_tensor b = custody_ones(sizes, 2, CUSTODY_FLOAT32);
  custody_tensor c = custody_add(a, b);
  custody_tensor bt = custody_transpose(b, 0, 1);
  custody_tensor m = custody_matmul(a, bt); /* [2, 3] x [3, 2]: row sums, twice */
  custody_tensor l = custody_from_data(longs, sizeof longs, &three, 1, CUSTODY_INT64);
  custody_tensor am = custody_argmax(a, 1, 0);
  custody_tensor sm = custody_softmax(a, 1);
  CHECK(a != NULL && b != NULL && c != NULL && bt != NULL && m != NULL && l != NULL && am != NULL && sm != NULL);
  CHECK(custody_dim(c) == 2);
  CHECK(custody_numel(c) == 6);
  CHECK(custody_sizes(c, got_sizes, 4) == 2 && got_sizes[0] == 2 && got_sizes[1] == 3);
  CHECK(custody_size(c, -1) == 3);
  CHECK(custody_dtype_of(c) == CUSTODY_FLOAT32);
  CHECK(custody_nbytes(c) == 24);
  CHECK(custody_copy_to(c, out, sizeof out) == CUSTODY_OK);
  CHECK(out[0] == 2 && out[5] == 7);
  CHECK(total(c) == 27);
  CHECK(custody_copy_to(m, out, sizeof out) == CUSTODY_OK);
  CHECK(out[0] == 6 && out[1] == 6 && out[2] == 15 && out[3] == 15);
  CHECK(custody_copy_to(l, longs_out, sizeof longs_out) == CUSTODY_OK);
  CHECK(longs_out[0] == 7 && longs_out[1] == -8 && longs_out[2] == 9);
  CHECK(custody_dtype_of(am) == CUSTODY_INT64);
  CHECK(custody_copy_to(am, longs_out, sizeof longs_out) == CUSTODY_OK);
  CHECK(longs_out[0] == 2 && longs_out[1] == 2);
  CHECK(fabs(total(sm) - 2.0) < 1e-5);
  CHECK(custody_release(a) == CUSTODY_OK);
  CHECK(custody_release(b) == CUSTODY_OK);
  CHECK(custody_release(c) == CUSTODY_OK);
  CHECK(custody_release(bt) == CUSTODY_OK);
  CHECK(custody_release(m) == CUSTODY_OK);
  CHECK(custody_release(l) == CUSTODY_OK);
  CHECK(custody_release(am) == CUSTODY_OK);
  CHECK(custody_release(sm) == CUSTODY_OK);
}

/* Bad input: NULL with a typed error naming the op; nothing made. */
static void test_errors(void) {
  const int64_t s23[2] = {2, 3};
  const int64_t s4[1] = {4};
  const float two[2] = {1, 2};
  float small[2];
  const int64_t live = custody_live_handles();
  custody_tensor a = custody_ones(s23, 2, CUSTODY_FLOAT32);
  custody_tensor b = custody_ones(s4, 1, CUSTODY_FLOAT32);
  CHECK(custody_add(a, b) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_SHAPE, "add");
  CHECK(custody_last_error() == CUSTODY_OK);
  CHECK(custody_matmul(a, a) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_SHAPE, "matmul");
  CHECK(custody_ones(s4, 1, 99) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_DTYPE, "99");
  CHECK(custody_from_data(two, sizeof two, s4, 1, CUSTODY_FLOAT32) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "custody_from_data");
  CHECK(custody_from_data(NULL, 16, s4, 1, CUSTODY_FLOAT32) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "null");
  CHECK(custody_copy_to(a, small, sizeof small) == CUSTODY_ERROR_INVALID_ARGUMENT);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "custody_copy_to");
  {
    double v;
    CHECK(custody_item(a, &v) != CUSTODY_OK);
    CHECK(custody_last_error() != CUSTODY_OK);
    CHECK(custody_last_error_code() != 0);
    custody_clear_error();
  }
  CHECK(custody_sum_dim(a, 5, 0) == NULL);
  CHECK(custody_last_error() != CUSTODY_OK);
  custody_clear_error();
  CHECK(custody_live_handles() == live + 2);
  CHECK(custody_release(a) == CUSTODY_OK);
  CHECK(custody_release(b) == CUSTODY_OK);
  CHECK(custody_live_handles() == live);
}

/* Misuse of handles: an error code, never undefined behaviour. */
static void test_handle_misuse(void) {
  const int64_t s[1] = {3};
  custody_tensor a = custody_ones(s, 1, CUSTODY_FLOAT32);
  custody_tensor b;
  uintptr_t forged;
  CHECK(custody_is_live(a) == 1);
  CHECK(custody_release(a) == CUSTODY_OK);
  CHECK(custody_is_live(a) == 0);
  CHECK(custody_release(a) == CUSTODY_ERROR_LIFETIME); /* double release */
  CHECK_ERROR(CUSTODY_ERROR_LIFETIME, "custody_release");
  CHECK(custody_exp(a) == NULL); /* use after release */
  CHECK_ERROR(CUSTODY_ERROR_LIFETIME, "custody_exp");
  CHECK(custody_numel(a) == -1);
  CHECK_ERROR(CUSTODY_ERROR_LIFETIME, "custody_numel");
  CHECK(custody_dispose(a) == CUSTODY_OK); /* dispose is idempotent */
  /* The slot is reused by the next handle: the old handle stays stale. */
  b = custody_ones(s, 1, CUSTODY_FLOAT32);
  CHECK(b != a);
  CHECK(custody_exp(a) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_LIFETIME, "used after it was released");
  CHECK(custody_add(b, NULL) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "null");
  forged = (uintptr_t)b ^ ((uintptr_t)1 << 57); /* another library's tag */
  CHECK(custody_exp((custody_tensor)forged) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "not a tensor handle of this library");
  CHECK(custody_release((custody_tensor)forged) == CUSTODY_ERROR_INVALID_ARGUMENT);
  custody_clear_error();
  forged = ((uintptr_t)b & ~(uintptr_t)0xffffffffu) | 0xfffffff0u; /* an index never handed out */
  CHECK(custody_exp((custody_tensor)forged) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "not a tensor handle this library made");
  CHECK(custody_exp((custody_tensor)(uintptr_t)12345) == NULL);
  CHECK_ERROR(CUSTODY_ERROR_INVALID_ARGUMENT, "not a tensor handle");
  CHECK(custody_is_live((custody_tensor)(uintptr_t)12345) == 0);
  CHECK(custody_release(b) == CUSTODY_OK);
}

static void test_retain_alias_in_place(void) {
  const int64_t s[1] = {4};
  custody_tensor x = custody_ones(s, 1, CUSTODY_FLOAT32);
  custody_tensor y = custody_full(s, 1, 2.0, CUSTODY_FLOAT32);
  custody_tensor r, al;
  /* retain: two releases to go */
  CHECK(custody_retain(x) == CUSTODY_OK);
  CHECK(custody_release(x) == CUSTODY_OK);
  CHECK(custody_is_live(x) == 1);
  /* in place: a fresh handle to x; releasing it leaves x */
  r = custody_add_(x, y);
  CHECK(r != NULL && r != x);
  CHECK(custody_release(r) == CUSTODY_OK);
  CHECK(custody_is_live(x) == 1);
  CHECK(total(x) == 12);
  r = custody_mul_scalar_(x, 0.5);
  CHECK(r != NULL && custody_release(r) == CUSTODY_OK);
  r = custody_fill_(y, 5.0);
  CHECK(r != NULL && custody_release(r) == CUSTODY_OK);
  r = custody_copy_(x, y);
  CHECK(r != NULL && custody_release(r) == CUSTODY_OK);
  CHECK(total(x) == 20);
  /* alias: the tensor outlives the handle it was made from (TorchSharp's alias()) */
  al = custody_alias(x);
  CHECK(custody_release(x) == CUSTODY_OK);
  CHECK(custody_is_live(x) == 0 && custody_is_live(al) == 1);
  CHECK(total(al) == 20);
  /* dispose: gone now, whatever the count */
  CHECK(custody_retain(al) == CUSTODY_OK);
  CHECK(custody_dispose(al) == CUSTODY_OK);
  CHECK(custody_is_live(al) == 0);
  CHECK(custody_release(al) == CUSTODY_ERROR_LIFETIME);
  custody_clear_error();
  CHECK(custody_release(y) == CUSTODY_OK);
}

/* TorchSharp's dispose scopes: what is made in a scope goes at its end, unless moved out or detached. */
static void test_scopes(void) {
  const int64_t s[1] = {2};
  const int64_t live = custody_live_handles();
  custody_tensor kept, moved, detached, a, b, c, keep[1];
  CHECK(custody_scope_end() == CUSTODY_ERROR_LIFETIME); /* none open */
  CHECK_ERROR(CUSTODY_ERROR_LIFETIME, "no dispose scope");
  CHECK(custody_dispose_everything_but(NULL, 0) == CUSTODY_ERROR_LIFETIME);
  custody_clear_error();

  CHECK(custody_scope_begin() == CUSTODY_OK);
  CHECK(custody_scope_depth() == 1);
  a = custody_ones(s, 1, CUSTODY_FLOAT32);
  b = custody_exp(a);
  detached = custody_add(a, b);
  moved = custody_mul(a, b);
  CHECK(custody_detach(detached) == CUSTODY_OK);
  CHECK(custody_move_to_outer(moved) == CUSTODY_OK); /* no outer scope: in none */
  CHECK(custody_live_handles() == live + 4);
  CHECK(custody_scope_end() == CUSTODY_OK);
  CHECK(custody_scope_depth() == 0);
  CHECK(custody_is_live(a) == 0 && custody_is_live(b) == 0);
  CHECK(custody_is_live(detached) == 1 && custody_is_live(moved) == 1);
  CHECK(custody_live_handles() == live + 2);
  CHECK(custody_release(detached) == CUSTODY_OK);
  CHECK(custody_release(moved) == CUSTODY_OK);

  /* Nested: moved to the outer scope, it goes at the outer scope's end. A handle released
   * inside a scope is simply gone when the scope ends. */
  CHECK(custody_scope_begin() == CUSTODY_OK);
  CHECK(custody_scope_begin() == CUSTODY_OK);
  a = custody_ones(s, 1, CUSTODY_FLOAT32);
  moved = custody_neg(a);
  c = custody_exp(a);
  CHECK(custody_release(c) == CUSTODY_OK);
  CHECK(custody_move_to_outer(moved) == CUSTODY_OK);
  CHECK(custody_scope_end() == CUSTODY_OK);
  CHECK(custody_is_live(a) == 0 && custody_is_live(moved) == 1);
  CHECK(total(moved) == -2);
  CHECK(custody_scope_end() == CUSTODY_OK);
  CHECK(custody_is_live(moved) == 0);
  CHECK(custody_live_handles() == live);

  /* DisposeEverythingBut: the kept one stays in the scope, and goes at its end. */
  CHECK(custody_scope_begin() == CUSTODY_OK);
  a = custody_ones(s, 1, CUSTODY_FLOAT32);
  b = custody_exp(a);
  kept = custody_add(a, b);
  keep[0] = kept;
  CHECK(custody_dispose_everything_but(keep, 1) == CUSTODY_OK);
  CHECK(custody_is_live(a) == 0 && custody_is_live(b) == 0 && custody_is_live(kept) == 1);
  CHECK(custody_scope_end() == CUSTODY_OK);
  CHECK(custody_is_live(kept) == 0);
  CHECK(custody_live_handles() == live);
}

/* The guide's line, `total_acc += (predicted_labels.argmax(1) == labels).sum().item<long>()`,
 * inside a scope: every temporary goes at the scope's end. */
static void test_guide_line(void) {
  const int64_t s[2] = {4, 3};
  const float logits[12] = {0, 1, 0, 2, 0, 0, 0, 0, 3, 1, 0, 0};
  const int64_t labels_data[4] = {1, 0, 2, 1};
  const int64_t four = 4;
  const int64_t live = custody_live_handles();
  const int64_t tensors = custody_live_tensors();
  custody_tensor predicted, labels;
  double total_acc = 0;
  CHECK(custody_scope_begin() == CUSTODY_OK);
  predicted = custody_from_data(logits, sizeof logits, s, 2, CUSTODY_FLOAT32);
  labels = custody_from_data(labels_data, sizeof labels_data, &four, 1, CUSTODY_INT64);
  total_acc += item(custody_sum(custody_eq(custody_argmax(predicted, 1, 0), labels)));
  CHECK(custody_scope_end() == CUSTODY_OK);
  CHECK(total_acc == 3);
  CHECK(custody_live_handles() == live);
  CHECK(custody_live_tensors() == tensors);
}

/* Releases from another thread (a finalizer thread's), and a dispose racing calls on the handle. */
struct race {
  custody_tensor t;
  int ok, gone, other;
};

static void* release_all(void* arg) {
  custody_tensor* handles = (custody_tensor*)arg;
  int i;
  for (i = 0; i < 64; ++i) {
    if (custody_release(handles[i]) != CUSTODY_OK) __atomic_fetch_add(&g_failures, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void* use_until_gone(void* arg) {
  struct race* r = (struct race*)arg;
  for (;;) {
    custody_tensor e = custody_exp(r->t);
    if (e != NULL) {
      __atomic_fetch_add(&r->ok, 1, __ATOMIC_RELEASE);
      if (custody_release(e) != CUSTODY_OK) ++r->other;
    } else if (custody_last_error() == CUSTODY_ERROR_LIFETIME) {
      ++r->gone;
      custody_clear_error();
      return NULL;
    } else {
      ++r->other;
      return NULL;
    }
  }
}

static void test_threads(void) {
  const int64_t s[1] = {1024};
  custody_tensor handles[64];
  pthread_t thread;
  struct race r = {NULL, 0, 0, 0};
  const int64_t live = custody_live_handles();
  int i;
  for (i = 0; i < 64; ++i) handles[i] = custody_ones(s, 1, CUSTODY_FLOAT32);
  CHECK(pthread_create(&thread, NULL, release_all, handles) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK(custody_live_handles() == live);

  r.t = custody_randn(s, 1, CUSTODY_FLOAT32);
  CHECK(pthread_create(&thread, NULL, use_until_gone, &r) == 0);
  while (__atomic_load_n(&r.ok, __ATOMIC_ACQUIRE) < 100) {
    /* the user thread is busy with the handle */
  }
  CHECK(custody_dispose(r.t) == CUSTODY_OK);
  CHECK(pthread_join(thread, NULL) == 0);
  CHECK(__atomic_load_n(&r.gone, __ATOMIC_ACQUIRE) == 1 && __atomic_load_n(&r.other, __ATOMIC_ACQUIRE) == 0);
  CHECK(custody_live_handles() == live);
}

static void test_nothing_left(int64_t tensors, int64_t bytes) {
  CHECK(custody_live_handles() == 0);
  CHECK(custody_live_tensors() == tensors);
  CHECK(custody_bytes_in_use() == bytes);
}

int main(void) {
  const int64_t tensors = custody_live_tensors();
  const int64_t bytes = custody_bytes_in_use();
  test_library();
  test_values();
  test_errors();
  test_handle_misuse();
  test_retain_alias_in_place();
  test_scopes();
  test_guide_line();
  test_threads();
  test_nothing_left(tensors, bytes);
  if (g_failures != 0) {
    fprintf(stderr, "%d checks failed (policy %s, backend %s)\n", g_failures, custody_policy_name(),
            custody_backend_name());
    return 1;
  }
  printf("c_api_test: every check passed (policy %s, backend %s)\n", custody_policy_name(), custody_backend_name());
  return 0;
}
