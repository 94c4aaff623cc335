#ifndef C_ALLOCATION_COUNTER_H
#define C_ALLOCATION_COUNTER_H

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) made so far by the
/// calling thread, in this test process.
long podium_allocations_on_this_thread(void);

#endif
