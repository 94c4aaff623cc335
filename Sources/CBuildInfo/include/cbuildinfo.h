#ifndef CBUILDINFO_H
#define CBUILDINFO_H

#include <stddef.h>

// The version a package build was made as (`git describe`, set by Scripts/package through the
// manifest's PODIUM_VERSION); empty in a build from source.
const char *cbuildinfo_version(void);

// The path of the first library loaded in this process whose file name starts with `prefix`
// (`libxcb.so` finds /lib/x86_64-linux-gnu/libxcb.so.1), as the dynamic linker names it, written
// into `path`; 0 when found and it fits.
int cbuildinfo_loaded_library(const char *prefix, char *path, size_t size);

#endif
