#ifndef PODIUM_CXXHASH_SHIM_H
#define PODIUM_CXXHASH_SHIM_H

// xxHash: the 128-bit fingerprint of a row of pixels, to see which rows of a picture changed.
#include <stddef.h>
#include <xxhash.h>
#if defined(__x86_64__)
// Debian's libxxhash picks its AVX2 or AVX-512 code when the processor has it; the plain
// entry points are built for the baseline SSE2, which reads a row slower than memcmp does.
#include <xxh_x86dispatch.h>
#endif

static inline XXH128_hash_t podium_row_fingerprint(const void *bytes, size_t length) {
#if defined(__x86_64__)
    return XXH3_128bits_dispatch(bytes, length);
#else
    return XXH3_128bits(bytes, length);
#endif
}

#endif
