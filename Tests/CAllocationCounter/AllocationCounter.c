// Counts the calling thread's heap allocations for tests that check a hot path allocates
// nothing. Defined in the test executable, these take the place of glibc's for every library
// in the process, and hand the work to glibc's own allocator.
#include <errno.h>
#include <stddef.h>
#include "CAllocationCounter.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Thread_local long allocations;

long podium_allocations_on_this_thread(void) { return allocations; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}
