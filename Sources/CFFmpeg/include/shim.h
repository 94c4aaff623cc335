#ifndef PODIUM_CFFMPEG_SHIM_H
#define PODIUM_CFFMPEG_SHIM_H

#include <dlfcn.h>
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/version_major.h>
#include <libavutil/audio_fifo.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// Function-like macros and compound-literal constants that Swift does not import.
static inline int cffmpeg_averror(int posix) { return AVERROR(posix); }
static inline int cffmpeg_averror_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_averror_exit(void) { return AVERROR_EXIT; }
static inline int64_t cffmpeg_nopts(void) { return AV_NOPTS_VALUE; }
static inline AVRational cffmpeg_time_base_q(void) { return AV_TIME_BASE_Q; }

// libavdevice (the V4L2 camera's input) is loaded when a camera is first opened, not linked: it
// brings libavfilter and some 80 libraries more, which made every start of podium, `--version`
// included, ~30 ms slower. Registers its inputs with libavformat; NULL, or the loader's reason.
static inline const char *cffmpeg_load_devices(void) {
    void *library = dlopen("libavdevice.so." AV_STRINGIFY(LIBAVDEVICE_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    if (!library) return dlerror();
    void (*register_all)(void) = (void (*)(void))dlsym(library, "avdevice_register_all");
    if (!register_all) return dlerror();
    register_all();
    return NULL;
}

#endif
