#ifndef PODIUM_CMALLOC_SHIM_H
#define PODIUM_CMALLOC_SHIM_H

// glibc's malloc_trim, which Swift's Glibc module leaves out: freed heap pages go back to the
// system when guests that came and went have left holes in the heap.
#include <malloc.h>

#endif
