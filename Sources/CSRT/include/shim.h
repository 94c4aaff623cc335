#ifndef PODIUM_CSRT_SHIM_H
#define PODIUM_CSRT_SHIM_H

// libsrt, which libavformat's srt:// protocol uses: Podium calls it only to route its log.
#include <srt/srt.h>
#include <syslog.h>

#endif
