# The thread pool of VecEnv's parallel step: C in vec_pool.h (no module of its own).
cdef extern from "vec_pool.h" nogil:
    ctypedef struct VecPool:
        pass
    ctypedef void (*vec_help_fn)(VecPool* p, int tid) noexcept
    int VEC_MAX_COUNT
    VecPool* vec_pool_new(int size, vec_help_fn help)
    void vec_pool_free(VecPool* p)
    int vec_pool_begin(VecPool* p, int nt, void* ctx)
    void vec_pool_spin(VecPool* p, long long gap_ns, long long low_ns)
    void vec_pool_end(VecPool* p)
    void vec_pool_rest(VecPool* p)
    void vec_publish(VecPool* p, int phase, int count, int div, int cap)
    int vec_claim(VecPool* p, int from_back, int* first, int* phase)
    void* vec_ctx(VecPool* p)
    void vec_done(VecPool* p, int t, int k)
    void vec_wait_done(VecPool* p)
    void* vec_alloc64(size_t n)


