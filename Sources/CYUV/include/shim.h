#ifndef PODIUM_CYUV_SHIM_H
#define PODIUM_CYUV_SHIM_H

// libyuv: the fast ARGB (BGRA in memory) scaling and conversion paths. Its headers are C when
// included from C; Debian ships no pkg-config file for it, so the module names the library.
#include <libyuv.h>

#endif
