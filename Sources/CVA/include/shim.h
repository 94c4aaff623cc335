#ifndef PODIUM_CVA_SHIM_H
#define PODIUM_CVA_SHIM_H

// libva, to ask a device what its driver offers before FFmpeg is handed it: FFmpeg turns every
// failure to initialise into one "Input/output error", and these calls tell the cases apart.
// The device is a render node (va_drm) or an X display (va_x11, through Xlib).
#include <fcntl.h>
#include <unistd.h>
#include <X11/Xlib.h>
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_str.h>
#include <va/va_x11.h>

#endif
