// Podium's test VA driver: stands for a GPU's encoder on a machine without one. libva loads it
// through an X display (VA-X11) when LIBVA_DRIVER_NAME=podiumfake and LIBVA_DRIVERS_PATH name
// the folder holding podiumfake_drv_video.so. It offers H.264 encoding (constrained baseline,
// main, high) the way a driver without packed headers does: each picture's coded buffer holds
// the whole Annex B access unit, parameter sets before every IDR. The pictures are really
// encoded, by libx264 at the size, rate control and bit rate the caller's parameter buffers ask,
// so what comes out decodes. HEVC Main is offered for decoding only.
//
// FAKE_VA_FAIL (comma-separated) makes it fail as real drivers do:
//   init            vaInitialize fails (the driver's own init)
//   no-profile      no H.264 profile is listed
//   no-entrypoint   H.264 is listed with no entrypoint
//   decode-only     H.264 can be decoded only (VLD)
//   config          vaCreateConfig fails
//   context         vaCreateContext fails (ALLOCATION_FAILED)
//   sessions:N      vaCreateContext fails (MAX_NUM_EXCEEDED) once N contexts are open
//   busy            vaCreateContext fails (HW_BUSY): other processes hold every session
//   frame:N         vaEndPicture fails (ENCODING_ERROR) from the Nth picture of the process on
// FAKE_VA_LOG names a file that gets a line per picture encoded: its size, IDR or not, the rate
// control, the bit rate and the QP asked, and the CPU time the encoding took (cpu_us).
//
// What it does not do: decode, scale, change the rate control of an open context (its first
// picture's parameters hold), or keep an object alive for another thread (an object is used by one
// thread at a time, as FFmpeg does); an image derived from a surface must go before the surface.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <va/va.h>
#include <va/va_backend.h>
#include <va/va_enc_h264.h>
#include <x264.h>

#define DRIVER_INIT_NAME2(major, minor) __vaDriverInit_##major##_##minor
#define DRIVER_INIT_NAME(major, minor) DRIVER_INIT_NAME2(major, minor)
#define DRIVER_INIT DRIVER_INIT_NAME(VA_MAJOR_VERSION, VA_MINOR_VERSION)

enum { MAX_OBJECTS = 1024, MAX_SIZE = 4096 };

// The ids of each kind of object start at their own base, so that one is never taken for another.
enum { CONFIG_BASE = 0x1000, CONTEXT_BASE = 0x2000, SURFACE_BASE = 0x4000, BUFFER_BASE = 0x8000,
       IMAGE_BASE = 0x10000 };

typedef struct {
    VAProfile profile;
    VAEntrypoint entrypoint;
    uint32_t rateControl;
} Config;

typedef struct {
    int width, height;
    int pitch;
    uint8_t *pixels; // NV12: the luma plane, then the interleaved chroma plane
} Surface;

typedef struct {
    VABufferType type;
    size_t size;
    unsigned elements;
    uint8_t *data;
    int owned;        // freed with the buffer (a derived image's buffer is its surface's pixels)
    int codedBytes;   // a coded buffer's used bytes, after its segment header
} Buffer;

typedef struct {
    VAImage image;
    int derivedFrom; // the surface whose pixels it is, or -1
} Image;

typedef struct {
    Config config;
    int width, height;
    VASurfaceID target;
    x264_t *encoder;
    // What the caller's buffers asked, kept past vaRenderPicture (their buffers go at once).
    VAEncSequenceParameterBufferH264 sequence;
    VAEncPictureParameterBufferH264 picture;
    int sliceQPDelta;
    uint32_t bitsPerSecond, targetPercentage, hrdBufferSize;
    uint32_t frameRateNum, frameRateDen;
    int64_t pts;
} Context;

typedef struct {
    pthread_mutex_t lock;
    void *objects[5][MAX_OBJECTS]; // configs, contexts, surfaces, buffers, images
} Driver;

enum Kind { CONFIGS, CONTEXTS, SURFACES, BUFFERS, IMAGES };
static const unsigned bases[] = { CONFIG_BASE, CONTEXT_BASE, SURFACE_BASE, BUFFER_BASE, IMAGE_BASE };

// The failures asked for, read once per process.
static struct {
    int init, noProfile, noEntrypoint, decodeOnly, config, context, busy;
    int sessions; // 0: no limit
    long frame;   // 0: never
} failing;
static atomic_long picturesEncoded;
static atomic_int contextsOpen;

static void readFailures(void) {
    const char *text = getenv("FAKE_VA_FAIL");
    if (!text) return;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", text);
    for (char *save = NULL, *word = strtok_r(copy, ",", &save); word; word = strtok_r(NULL, ",", &save)) {
        if (!strcmp(word, "init")) failing.init = 1;
        else if (!strcmp(word, "no-profile")) failing.noProfile = 1;
        else if (!strcmp(word, "no-entrypoint")) failing.noEntrypoint = 1;
        else if (!strcmp(word, "decode-only")) failing.decodeOnly = 1;
        else if (!strcmp(word, "config")) failing.config = 1;
        else if (!strcmp(word, "context")) failing.context = 1;
        else if (!strcmp(word, "busy")) failing.busy = 1;
        else if (!strncmp(word, "sessions:", 9)) failing.sessions = atoi(word + 9);
        else if (!strncmp(word, "frame:", 6)) failing.frame = atol(word + 6);
    }
}

static Driver *driverOf(VADriverContextP ctx) { return ctx->pDriverData; }

// Stores `object` under a new id of `kind`; VA_INVALID_ID when the table is full.
static unsigned store(Driver *driver, enum Kind kind, void *object) {
    pthread_mutex_lock(&driver->lock);
    for (unsigned index = 0; index < MAX_OBJECTS; index++) {
        if (!driver->objects[kind][index]) {
            driver->objects[kind][index] = object;
            pthread_mutex_unlock(&driver->lock);
            return bases[kind] + index;
        }
    }
    pthread_mutex_unlock(&driver->lock);
    return VA_INVALID_ID;
}

// The object of `kind` with `id`, or NULL; left out of the table when `removing`.
static void *lookUp(Driver *driver, enum Kind kind, unsigned id, int removing) {
    if (id < bases[kind] || id >= bases[kind] + MAX_OBJECTS) return NULL;
    pthread_mutex_lock(&driver->lock);
    void *object = driver->objects[kind][id - bases[kind]];
    if (removing) driver->objects[kind][id - bases[kind]] = NULL;
    pthread_mutex_unlock(&driver->lock);
    return object;
}

static void *find(Driver *driver, enum Kind kind, unsigned id) { return lookUp(driver, kind, id, 0); }
static void *take(Driver *driver, enum Kind kind, unsigned id) { return lookUp(driver, kind, id, 1); }

static int isH264(VAProfile profile) {
    return profile == VAProfileH264ConstrainedBaseline || profile == VAProfileH264Main
        || profile == VAProfileH264High;
}

// MARK: Profiles, entrypoints, configs

static VAStatus queryProfiles(VADriverContextP ctx, VAProfile *list, int *count) {
    (void)ctx;
    int n = 0;
    if (!failing.noProfile) {
        list[n++] = VAProfileH264ConstrainedBaseline;
        list[n++] = VAProfileH264Main;
        list[n++] = VAProfileH264High;
    }
    list[n++] = VAProfileHEVCMain;
    *count = n;
    return VA_STATUS_SUCCESS;
}

static VAStatus queryEntrypoints(VADriverContextP ctx, VAProfile profile, VAEntrypoint *list, int *count) {
    (void)ctx;
    *count = 0;
    if (profile == VAProfileHEVCMain) {
        list[(*count)++] = VAEntrypointVLD;
        return VA_STATUS_SUCCESS;
    }
    if (!isH264(profile) || failing.noProfile) return VA_STATUS_ERROR_UNSUPPORTED_PROFILE;
    if (failing.noEntrypoint) return VA_STATUS_SUCCESS;
    list[(*count)++] = VAEntrypointVLD;
    if (!failing.decodeOnly) list[(*count)++] = VAEntrypointEncSlice;
    return VA_STATUS_SUCCESS;
}

static VAStatus checkPair(VAProfile profile, VAEntrypoint entrypoint) {
    VAEntrypoint list[4];
    int count = 0;
    VAStatus status = queryEntrypoints(NULL, profile, list, &count);
    if (status != VA_STATUS_SUCCESS) return status;
    for (int i = 0; i < count; i++) if (list[i] == entrypoint) return VA_STATUS_SUCCESS;
    return VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
}

static VAStatus getConfigAttributes(VADriverContextP ctx, VAProfile profile, VAEntrypoint entrypoint,
                                    VAConfigAttrib *list, int count) {
    (void)ctx;
    VAStatus status = checkPair(profile, entrypoint);
    if (status != VA_STATUS_SUCCESS) return status;
    int encoding = entrypoint == VAEntrypointEncSlice;
    for (int i = 0; i < count; i++) {
        switch (list[i].type) {
        case VAConfigAttribRTFormat: list[i].value = VA_RT_FORMAT_YUV420; break;
        case VAConfigAttribRateControl:
            list[i].value = encoding ? VA_RC_CQP | VA_RC_CBR | VA_RC_VBR : VA_ATTRIB_NOT_SUPPORTED;
            break;
        // One reference, forward only: pictures are I and P.
        case VAConfigAttribEncMaxRefFrames: list[i].value = encoding ? 1 : VA_ATTRIB_NOT_SUPPORTED; break;
        case VAConfigAttribEncPackedHeaders: list[i].value = encoding ? VA_ENC_PACKED_HEADER_NONE
                                                                      : VA_ATTRIB_NOT_SUPPORTED; break;
        default: list[i].value = VA_ATTRIB_NOT_SUPPORTED; break;
        }
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus createConfig(VADriverContextP ctx, VAProfile profile, VAEntrypoint entrypoint,
                             VAConfigAttrib *list, int count, VAConfigID *id) {
    VAStatus status = checkPair(profile, entrypoint);
    if (status != VA_STATUS_SUCCESS) return status;
    if (failing.config) return VA_STATUS_ERROR_OPERATION_FAILED;
    Config *config = calloc(1, sizeof *config);
    if (!config) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    *config = (Config){ profile, entrypoint, VA_RC_CQP };
    for (int i = 0; i < count; i++) {
        if (list[i].type == VAConfigAttribRateControl) config->rateControl = list[i].value;
        if (list[i].type == VAConfigAttribRTFormat && !(list[i].value & VA_RT_FORMAT_YUV420)) {
            free(config);
            return VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
        }
    }
    *id = store(driverOf(ctx), CONFIGS, config);
    if (*id == VA_INVALID_ID) { free(config); return VA_STATUS_ERROR_ALLOCATION_FAILED; }
    return VA_STATUS_SUCCESS;
}

static VAStatus destroyConfig(VADriverContextP ctx, VAConfigID id) {
    Config *config = take(driverOf(ctx), CONFIGS, id);
    if (!config) return VA_STATUS_ERROR_INVALID_CONFIG;
    free(config);
    return VA_STATUS_SUCCESS;
}

static VAStatus queryConfigAttributes(VADriverContextP ctx, VAConfigID id, VAProfile *profile,
                                      VAEntrypoint *entrypoint, VAConfigAttrib *list, int *count) {
    Config *config = find(driverOf(ctx), CONFIGS, id);
    if (!config) return VA_STATUS_ERROR_INVALID_CONFIG;
    *profile = config->profile;
    *entrypoint = config->entrypoint;
    list[0] = (VAConfigAttrib){ VAConfigAttribRTFormat, VA_RT_FORMAT_YUV420 };
    *count = 1;
    return VA_STATUS_SUCCESS;
}

// MARK: Surfaces and images

static Surface *newSurface(unsigned width, unsigned height) {
    if (width == 0 || height == 0 || width > MAX_SIZE || height > MAX_SIZE) return NULL;
    Surface *surface = calloc(1, sizeof *surface);
    if (!surface) return NULL;
    surface->width = (int)width;
    surface->height = (int)height;
    surface->pitch = (int)((width + 15) & ~15u);
    int rows = (int)((height + 1) & ~1u);
    surface->pixels = calloc((size_t)surface->pitch * (size_t)rows * 3 / 2, 1);
    if (!surface->pixels) { free(surface); return NULL; }
    return surface;
}

static VAStatus destroySurfaces(VADriverContextP ctx, VASurfaceID *list, int count) {
    for (int i = 0; i < count; i++) {
        Surface *surface = take(driverOf(ctx), SURFACES, list[i]);
        if (surface) { free(surface->pixels); free(surface); }
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus createSurfaces2(VADriverContextP ctx, unsigned format, unsigned width, unsigned height,
                                VASurfaceID *list, unsigned count, VASurfaceAttrib *attributes,
                                unsigned attributeCount) {
    (void)attributes, (void)attributeCount;
    if (format != VA_RT_FORMAT_YUV420) return VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
    for (unsigned i = 0; i < count; i++) {
        Surface *surface = newSurface(width, height);
        list[i] = surface ? store(driverOf(ctx), SURFACES, surface) : VA_INVALID_ID;
        if (list[i] == VA_INVALID_ID) {
            if (surface) { free(surface->pixels); free(surface); }
            destroySurfaces(ctx, list, (int)i);
            return VA_STATUS_ERROR_ALLOCATION_FAILED;
        }
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus createSurfaces(VADriverContextP ctx, int width, int height, int format, int count,
                               VASurfaceID *list) {
    if (width <= 0 || height <= 0 || count < 0) return VA_STATUS_ERROR_INVALID_PARAMETER;
    return createSurfaces2(ctx, (unsigned)format, (unsigned)width, (unsigned)height, list, (unsigned)count, NULL, 0);
}

static VAStatus querySurfaceAttributes(VADriverContextP ctx, VAConfigID id, VASurfaceAttrib *list, unsigned *count) {
    if (!find(driverOf(ctx), CONFIGS, id)) return VA_STATUS_ERROR_INVALID_CONFIG;
    const VASurfaceAttrib offered[] = {
        { VASurfaceAttribPixelFormat, VA_SURFACE_ATTRIB_GETTABLE | VA_SURFACE_ATTRIB_SETTABLE,
          { VAGenericValueTypeInteger, { .i = VA_FOURCC_NV12 } } },
        { VASurfaceAttribMinWidth, VA_SURFACE_ATTRIB_GETTABLE, { VAGenericValueTypeInteger, { .i = 16 } } },
        { VASurfaceAttribMinHeight, VA_SURFACE_ATTRIB_GETTABLE, { VAGenericValueTypeInteger, { .i = 16 } } },
        { VASurfaceAttribMaxWidth, VA_SURFACE_ATTRIB_GETTABLE, { VAGenericValueTypeInteger, { .i = MAX_SIZE } } },
        { VASurfaceAttribMaxHeight, VA_SURFACE_ATTRIB_GETTABLE, { VAGenericValueTypeInteger, { .i = MAX_SIZE } } },
        { VASurfaceAttribMemoryType, VA_SURFACE_ATTRIB_GETTABLE | VA_SURFACE_ATTRIB_SETTABLE,
          { VAGenericValueTypeInteger, { .i = VA_SURFACE_ATTRIB_MEM_TYPE_VA } } },
    };
    unsigned offeredCount = sizeof offered / sizeof offered[0];
    if (!list) { *count = offeredCount; return VA_STATUS_SUCCESS; }
    if (*count < offeredCount) { *count = offeredCount; return VA_STATUS_ERROR_MAX_NUM_EXCEEDED; }
    memcpy(list, offered, sizeof offered);
    *count = offeredCount;
    return VA_STATUS_SUCCESS;
}

static const VAImageFormat nv12 = { VA_FOURCC_NV12, VA_LSB_FIRST, 12, 0, 0, 0, 0, 0, { 0 } };

static VAStatus queryImageFormats(VADriverContextP ctx, VAImageFormat *list, int *count) {
    (void)ctx;
    list[0] = nv12;
    *count = 1;
    return VA_STATUS_SUCCESS;
}

static VAStatus newBuffer(VADriverContextP ctx, VABufferType type, size_t size, uint8_t *data, int owned,
                          VABufferID *id) {
    Buffer *buffer = calloc(1, sizeof *buffer);
    if (!buffer) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    *buffer = (Buffer){ type, size, 1, data, owned, 0 };
    *id = store(driverOf(ctx), BUFFERS, buffer);
    if (*id == VA_INVALID_ID) { free(buffer); return VA_STATUS_ERROR_ALLOCATION_FAILED; }
    return VA_STATUS_SUCCESS;
}

static VAStatus destroyBuffer(VADriverContextP ctx, VABufferID id) {
    Buffer *buffer = take(driverOf(ctx), BUFFERS, id);
    if (!buffer) return VA_STATUS_ERROR_INVALID_BUFFER;
    if (buffer->owned) free(buffer->data);
    free(buffer);
    return VA_STATUS_SUCCESS;
}

// An NV12 image of `width` x `height` laid out as a surface of that size is.
static void describe(VAImage *image, int width, int height, int pitch, VABufferID buffer, size_t size) {
    int rows = (height + 1) & ~1;
    *image = (VAImage){ .format = nv12, .buf = buffer, .width = (uint16_t)width, .height = (uint16_t)height,
                        .data_size = (uint32_t)size, .num_planes = 2 };
    image->pitches[0] = image->pitches[1] = (uint32_t)pitch;
    image->offsets[1] = (uint32_t)(pitch * rows);
}

static VAStatus storeImage(VADriverContextP ctx, VAImage *image, int derivedFrom) {
    Image *stored = calloc(1, sizeof *stored);
    if (!stored) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    stored->derivedFrom = derivedFrom;
    image->image_id = store(driverOf(ctx), IMAGES, stored);
    if (image->image_id == VA_INVALID_ID) { free(stored); return VA_STATUS_ERROR_ALLOCATION_FAILED; }
    stored->image = *image;
    return VA_STATUS_SUCCESS;
}

static VAStatus createImage(VADriverContextP ctx, VAImageFormat *format, int width, int height, VAImage *image) {
    if (format->fourcc != VA_FOURCC_NV12) return VA_STATUS_ERROR_INVALID_IMAGE_FORMAT;
    if (width <= 0 || height <= 0 || width > MAX_SIZE || height > MAX_SIZE) return VA_STATUS_ERROR_INVALID_PARAMETER;
    int pitch = (width + 15) & ~15, rows = (height + 1) & ~1;
    size_t size = (size_t)pitch * (size_t)rows * 3 / 2;
    uint8_t *data = calloc(size, 1);
    if (!data) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    VABufferID buffer;
    VAStatus status = newBuffer(ctx, VAImageBufferType, size, data, 1, &buffer);
    if (status != VA_STATUS_SUCCESS) { free(data); return status; }
    describe(image, width, height, pitch, buffer, size);
    status = storeImage(ctx, image, -1);
    if (status != VA_STATUS_SUCCESS) destroyBuffer(ctx, buffer);
    return status;
}

static VAStatus deriveImage(VADriverContextP ctx, VASurfaceID id, VAImage *image) {
    Surface *surface = find(driverOf(ctx), SURFACES, id);
    if (!surface) return VA_STATUS_ERROR_INVALID_SURFACE;
    size_t size = (size_t)surface->pitch * (size_t)((surface->height + 1) & ~1) * 3 / 2;
    VABufferID buffer;
    VAStatus status = newBuffer(ctx, VAImageBufferType, size, surface->pixels, 0, &buffer);
    if (status != VA_STATUS_SUCCESS) return status;
    describe(image, surface->width, surface->height, surface->pitch, buffer, size);
    status = storeImage(ctx, image, (int)id);
    if (status != VA_STATUS_SUCCESS) destroyBuffer(ctx, buffer);
    return status;
}

static VAStatus destroyImage(VADriverContextP ctx, VAImageID id) {
    Image *image = take(driverOf(ctx), IMAGES, id);
    if (!image) return VA_STATUS_ERROR_INVALID_IMAGE;
    destroyBuffer(ctx, image->image.buf);
    free(image);
    return VA_STATUS_SUCCESS;
}

// Copies the whole picture between an image and a surface of the same size, either way.
static VAStatus copyPicture(VADriverContextP ctx, VASurfaceID surfaceID, VAImageID imageID, int toSurface) {
    Surface *surface = find(driverOf(ctx), SURFACES, surfaceID);
    Image *image = find(driverOf(ctx), IMAGES, imageID);
    if (!surface) return VA_STATUS_ERROR_INVALID_SURFACE;
    if (!image) return VA_STATUS_ERROR_INVALID_IMAGE;
    Buffer *buffer = find(driverOf(ctx), BUFFERS, image->image.buf);
    if (!buffer) return VA_STATUS_ERROR_INVALID_BUFFER;
    if (image->image.width != surface->width || image->image.height != surface->height) {
        return VA_STATUS_ERROR_UNIMPLEMENTED; // scaling is not this driver's
    }
    if (buffer->data == surface->pixels) return VA_STATUS_SUCCESS;
    for (int plane = 0; plane < 2; plane++) {
        int rows = plane == 0 ? surface->height : (surface->height + 1) / 2;
        uint8_t *surfacePlane = surface->pixels + (plane == 0 ? 0 : surface->pitch * ((surface->height + 1) & ~1));
        uint8_t *imagePlane = buffer->data + image->image.offsets[plane];
        for (int row = 0; row < rows; row++) {
            uint8_t *s = surfacePlane + row * surface->pitch, *i = imagePlane + row * (int)image->image.pitches[plane];
            memcpy(toSurface ? s : i, toSurface ? i : s, (size_t)((surface->width + 1) & ~1));
        }
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus getImage(VADriverContextP ctx, VASurfaceID surface, int x, int y, unsigned width, unsigned height,
                         VAImageID image) {
    if (x != 0 || y != 0) return VA_STATUS_ERROR_UNIMPLEMENTED;
    (void)width, (void)height;
    return copyPicture(ctx, surface, image, 0);
}

static VAStatus putImage(VADriverContextP ctx, VASurfaceID surface, VAImageID image, int srcX, int srcY,
                         unsigned srcWidth, unsigned srcHeight, int destX, int destY, unsigned destWidth,
                         unsigned destHeight) {
    if (srcX || srcY || destX || destY || srcWidth != destWidth || srcHeight != destHeight) {
        return VA_STATUS_ERROR_UNIMPLEMENTED;
    }
    return copyPicture(ctx, surface, image, 1);
}

// MARK: Buffers

static VAStatus createBuffer(VADriverContextP ctx, VAContextID context, VABufferType type, unsigned size,
                             unsigned elements, void *data, VABufferID *id) {
    (void)context;
    size_t total = (size_t)size * (elements ? elements : 1);
    // A coded buffer is mapped as a segment header followed by its bytes.
    size_t allocated = type == VAEncCodedBufferType ? sizeof(VACodedBufferSegment) + total : total;
    uint8_t *bytes = calloc(allocated ? allocated : 1, 1);
    if (!bytes) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    if (data && type != VAEncCodedBufferType) memcpy(bytes, data, total);
    VAStatus status = newBuffer(ctx, type, total, bytes, 1, id);
    if (status != VA_STATUS_SUCCESS) { free(bytes); return status; }
    ((Buffer *)find(driverOf(ctx), BUFFERS, *id))->elements = elements;
    return VA_STATUS_SUCCESS;
}

static VAStatus setElements(VADriverContextP ctx, VABufferID id, unsigned elements) {
    Buffer *buffer = find(driverOf(ctx), BUFFERS, id);
    if (!buffer) return VA_STATUS_ERROR_INVALID_BUFFER;
    if ((size_t)elements * (buffer->size / (buffer->elements ? buffer->elements : 1)) > buffer->size) {
        return VA_STATUS_ERROR_INVALID_PARAMETER;
    }
    buffer->elements = elements;
    return VA_STATUS_SUCCESS;
}

static VAStatus mapBuffer(VADriverContextP ctx, VABufferID id, void **mapped) {
    Buffer *buffer = find(driverOf(ctx), BUFFERS, id);
    if (!buffer) return VA_STATUS_ERROR_INVALID_BUFFER;
    if (buffer->type == VAEncCodedBufferType) {
        VACodedBufferSegment *segment = (VACodedBufferSegment *)buffer->data;
        *segment = (VACodedBufferSegment){ .size = (uint32_t)buffer->codedBytes,
                                           .buf = buffer->data + sizeof *segment };
    }
    *mapped = buffer->data;
    return VA_STATUS_SUCCESS;
}

static VAStatus unmapBuffer(VADriverContextP ctx, VABufferID id) {
    return find(driverOf(ctx), BUFFERS, id) ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_BUFFER;
}

// MARK: Contexts and pictures

static VAStatus createContext(VADriverContextP ctx, VAConfigID configID, int width, int height, int flag,
                              VASurfaceID *targets, int targetCount, VAContextID *id) {
    (void)flag, (void)targets, (void)targetCount;
    Config *config = find(driverOf(ctx), CONFIGS, configID);
    if (!config) return VA_STATUS_ERROR_INVALID_CONFIG;
    if (config->entrypoint != VAEntrypointEncSlice) return VA_STATUS_ERROR_UNIMPLEMENTED; // no decoding here
    if (width <= 0 || height <= 0 || width > MAX_SIZE || height > MAX_SIZE) return VA_STATUS_ERROR_INVALID_PARAMETER;
    if (failing.context) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    if (failing.busy) return VA_STATUS_ERROR_HW_BUSY;
    if (failing.sessions && atomic_fetch_add(&contextsOpen, 1) >= failing.sessions) {
        atomic_fetch_sub(&contextsOpen, 1);
        return VA_STATUS_ERROR_MAX_NUM_EXCEEDED;
    }
    Context *context = calloc(1, sizeof *context);
    if (!context) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    *context = (Context){ .config = *config, .width = width, .height = height, .target = VA_INVALID_ID,
                          .frameRateNum = 30, .frameRateDen = 1, .targetPercentage = 100 };
    *id = store(driverOf(ctx), CONTEXTS, context);
    if (*id == VA_INVALID_ID) { free(context); return VA_STATUS_ERROR_ALLOCATION_FAILED; }
    return VA_STATUS_SUCCESS;
}

static VAStatus destroyContext(VADriverContextP ctx, VAContextID id) {
    Context *context = take(driverOf(ctx), CONTEXTS, id);
    if (!context) return VA_STATUS_ERROR_INVALID_CONTEXT;
    if (context->encoder) x264_encoder_close(context->encoder);
    if (failing.sessions) atomic_fetch_sub(&contextsOpen, 1);
    free(context);
    return VA_STATUS_SUCCESS;
}

static VAStatus beginPicture(VADriverContextP ctx, VAContextID id, VASurfaceID target) {
    Context *context = find(driverOf(ctx), CONTEXTS, id);
    if (!context) return VA_STATUS_ERROR_INVALID_CONTEXT;
    if (!find(driverOf(ctx), SURFACES, target)) return VA_STATUS_ERROR_INVALID_SURFACE;
    context->target = target;
    return VA_STATUS_SUCCESS;
}

static void keepMisc(Context *context, const VAEncMiscParameterBuffer *misc, size_t size) {
    size_t payload = size - sizeof *misc;
    switch (misc->type) {
    case VAEncMiscParameterTypeRateControl: {
        if (payload < sizeof(VAEncMiscParameterRateControl)) break;
        const VAEncMiscParameterRateControl *rate = (const void *)misc->data;
        context->bitsPerSecond = rate->bits_per_second;
        context->targetPercentage = rate->target_percentage ? rate->target_percentage : 100;
        break;
    }
    case VAEncMiscParameterTypeFrameRate: {
        if (payload < sizeof(VAEncMiscParameterFrameRate)) break;
        const VAEncMiscParameterFrameRate *rate = (const void *)misc->data;
        // num in the low 16 bits, den in the high ones (den 0: 1)
        context->frameRateNum = rate->framerate & 0xffff;
        context->frameRateDen = rate->framerate >> 16 ? rate->framerate >> 16 : 1;
        if (!context->frameRateNum) context->frameRateNum = 30;
        break;
    }
    case VAEncMiscParameterTypeHRD: {
        if (payload < sizeof(VAEncMiscParameterHRD)) break;
        const VAEncMiscParameterHRD *hrd = (const void *)misc->data;
        context->hrdBufferSize = hrd->buffer_size;
        break;
    }
    default: break;
    }
}

static VAStatus renderPicture(VADriverContextP ctx, VAContextID id, VABufferID *buffers, int count) {
    Context *context = find(driverOf(ctx), CONTEXTS, id);
    if (!context) return VA_STATUS_ERROR_INVALID_CONTEXT;
    for (int i = 0; i < count; i++) {
        Buffer *buffer = find(driverOf(ctx), BUFFERS, buffers[i]);
        if (!buffer) return VA_STATUS_ERROR_INVALID_BUFFER;
        switch (buffer->type) {
        case VAEncSequenceParameterBufferType:
            if (buffer->size < sizeof context->sequence) return VA_STATUS_ERROR_INVALID_PARAMETER;
            memcpy(&context->sequence, buffer->data, sizeof context->sequence);
            if (context->sequence.bits_per_second) context->bitsPerSecond = context->sequence.bits_per_second;
            break;
        case VAEncPictureParameterBufferType:
            if (buffer->size < sizeof context->picture) return VA_STATUS_ERROR_INVALID_PARAMETER;
            memcpy(&context->picture, buffer->data, sizeof context->picture);
            break;
        case VAEncSliceParameterBufferType:
            if (buffer->size < sizeof(VAEncSliceParameterBufferH264)) return VA_STATUS_ERROR_INVALID_PARAMETER;
            context->sliceQPDelta = ((VAEncSliceParameterBufferH264 *)buffer->data)->slice_qp_delta;
            break;
        case VAEncMiscParameterBufferType:
            if (buffer->size < sizeof(VAEncMiscParameterBuffer)) return VA_STATUS_ERROR_INVALID_PARAMETER;
            keepMisc(context, (VAEncMiscParameterBuffer *)buffer->data, buffer->size);
            break;
        default: break; // packed headers are not offered; anything else is not needed here
        }
    }
    return VA_STATUS_SUCCESS;
}

// Opens libx264 for what the sequence parameters describe.
static int openEncoder(Context *context) {
    const VAEncSequenceParameterBufferH264 *sequence = &context->sequence;
    int width = sequence->picture_width_in_mbs * 16, height = sequence->picture_height_in_mbs * 16;
    if (sequence->frame_cropping_flag) {
        width -= 2 * (int)(sequence->frame_crop_left_offset + sequence->frame_crop_right_offset);
        height -= 2 * (int)(sequence->frame_crop_top_offset + sequence->frame_crop_bottom_offset);
    }
    if (width <= 0 || height <= 0 || width > context->width || height > context->height) return -1;
    x264_param_t param;
    if (x264_param_default_preset(&param, "ultrafast", "zerolatency") < 0) return -1;
    param.i_width = width;
    param.i_height = height;
    param.i_csp = X264_CSP_NV12;
    param.i_threads = 1;
    param.i_bframe = 0;
    param.i_keyint_max = X264_KEYINT_MAX_INFINITE; // keyframes where the caller asks for IDR
    param.b_annexb = 1;
    param.b_repeat_headers = 1;                    // no packed headers: SPS and PPS in every IDR
    param.i_fps_num = context->frameRateNum;
    param.i_fps_den = context->frameRateDen;
    param.i_log_level = X264_LOG_NONE;
    uint32_t rate = context->config.rateControl;
    if (rate & (VA_RC_CBR | VA_RC_VBR) && context->bitsPerSecond) {
        param.rc.i_rc_method = X264_RC_ABR;
        int ceiling = (int)(context->bitsPerSecond / 1000);
        param.rc.i_bitrate = rate & VA_RC_CBR ? ceiling : (int)((uint64_t)ceiling * context->targetPercentage / 100);
        param.rc.i_vbv_max_bitrate = ceiling;
        param.rc.i_vbv_buffer_size = context->hrdBufferSize ? (int)(context->hrdBufferSize / 1000) : ceiling;
    } else {
        param.rc.i_rc_method = X264_RC_CQP;
        param.rc.i_qp_constant = context->picture.pic_init_qp + context->sliceQPDelta;
    }
    if (context->config.profile == VAProfileH264ConstrainedBaseline) x264_param_apply_profile(&param, "baseline");
    context->encoder = x264_encoder_open(&param);
    return context->encoder ? 0 : -1;
}

// The calling thread's CPU time, in microseconds.
static long threadMicroseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return now.tv_sec * 1000000L + now.tv_nsec / 1000;
}

static void logPicture(const Context *context, int idr, int bytes, long microseconds) {
    const char *path = getenv("FAKE_VA_LOG");
    FILE *log = path ? fopen(path, "a") : NULL;
    if (!log) return;
    uint32_t rate = context->config.rateControl;
    fprintf(log, "picture %ld %dx%d %s %d bytes rc=%s bps=%u qp=%d cpu_us=%ld\n", (long)context->pts,
            context->width, context->height, idr ? "IDR" : "P", bytes,
            rate & VA_RC_CBR ? "CBR" : rate & VA_RC_VBR ? "VBR" : "CQP", context->bitsPerSecond,
            context->picture.pic_init_qp + context->sliceQPDelta, microseconds);
    fclose(log);
}

static VAStatus endPicture(VADriverContextP ctx, VAContextID id) {
    long started = threadMicroseconds();
    Driver *driver = driverOf(ctx);
    Context *context = find(driver, CONTEXTS, id);
    if (!context) return VA_STATUS_ERROR_INVALID_CONTEXT;
    Surface *surface = find(driver, SURFACES, context->target);
    Buffer *coded = find(driver, BUFFERS, context->picture.coded_buf);
    if (!surface || !coded || coded->type != VAEncCodedBufferType) return VA_STATUS_ERROR_INVALID_PARAMETER;
    long number = atomic_fetch_add(&picturesEncoded, 1) + 1;
    if (failing.frame && number >= failing.frame) return VA_STATUS_ERROR_ENCODING_ERROR;
    if (!context->encoder && openEncoder(context) < 0) return VA_STATUS_ERROR_OPERATION_FAILED;
    x264_param_t opened;
    x264_encoder_parameters(context->encoder, &opened);
    if (surface->width < opened.i_width || surface->height < opened.i_height) return VA_STATUS_ERROR_INVALID_SURFACE;
    x264_picture_t in, out;
    x264_picture_init(&in);
    in.img.i_csp = X264_CSP_NV12;
    in.img.i_plane = 2;
    in.img.plane[0] = surface->pixels;
    in.img.plane[1] = surface->pixels + surface->pitch * ((surface->height + 1) & ~1);
    in.img.i_stride[0] = in.img.i_stride[1] = surface->pitch;
    int idr = context->picture.pic_fields.bits.idr_pic_flag;
    in.i_type = idr ? X264_TYPE_IDR : X264_TYPE_P;
    in.i_pts = context->pts++;
    x264_nal_t *nals;
    int nalCount;
    int bytes = x264_encoder_encode(context->encoder, &nals, &nalCount, &in, &out);
    if (bytes < 0) return VA_STATUS_ERROR_ENCODING_ERROR;
    // The NALs of one call are contiguous in x264's own buffer.
    if ((size_t)bytes > coded->size) return VA_STATUS_ERROR_NOT_ENOUGH_BUFFER;
    if (bytes > 0) memcpy(coded->data + sizeof(VACodedBufferSegment), nals[0].p_payload, (size_t)bytes);
    coded->codedBytes = bytes;
    // The driver's own work: what a GPU would do (the encoding), and the copy out.
    logPicture(context, idr, bytes, threadMicroseconds() - started);
    return VA_STATUS_SUCCESS;
}

// A coded buffer is whole once vaEndPicture returns. Offering the call makes FFmpeg take the path it
// takes with real drivers (iHD): pictures in flight, up to its async_depth.
static VAStatus syncBuffer(VADriverContextP ctx, VABufferID id, uint64_t timeout) {
    (void)timeout;
    return find(driverOf(ctx), BUFFERS, id) ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_BUFFER;
}

static VAStatus syncSurface(VADriverContextP ctx, VASurfaceID id) {
    return find(driverOf(ctx), SURFACES, id) ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_INVALID_SURFACE;
}

static VAStatus querySurfaceStatus(VADriverContextP ctx, VASurfaceID id, VASurfaceStatus *status) {
    if (!find(driverOf(ctx), SURFACES, id)) return VA_STATUS_ERROR_INVALID_SURFACE;
    *status = VASurfaceReady;
    return VA_STATUS_SUCCESS;
}

// MARK: What libva requires and Podium never uses

static VAStatus unimplemented(void) { return VA_STATUS_ERROR_UNIMPLEMENTED; }
#define STUB(name, ...) static VAStatus name(__VA_ARGS__) { return unimplemented(); }
STUB(putSurface, VADriverContextP c, VASurfaceID s, void *d, short a, short b, unsigned short e, unsigned short f,
     short g, short h, unsigned short i, unsigned short j, VARectangle *r, unsigned int n, unsigned int l)
STUB(setImagePalette, VADriverContextP c, VAImageID i, unsigned char *p)
STUB(createSubpicture, VADriverContextP c, VAImageID i, VASubpictureID *s)
STUB(destroySubpicture, VADriverContextP c, VASubpictureID s)
STUB(setSubpictureImage, VADriverContextP c, VASubpictureID s, VAImageID i)
STUB(setSubpictureChromakey, VADriverContextP c, VASubpictureID s, unsigned int a, unsigned int b, unsigned int m)
STUB(setSubpictureGlobalAlpha, VADriverContextP c, VASubpictureID s, float a)
STUB(associateSubpicture, VADriverContextP c, VASubpictureID s, VASurfaceID *t, int n, short a, short b,
     unsigned short e, unsigned short f, short g, short h, unsigned short i, unsigned short j, unsigned int l)
STUB(deassociateSubpicture, VADriverContextP c, VASubpictureID s, VASurfaceID *t, int n)
STUB(getDisplayAttributes, VADriverContextP c, VADisplayAttribute *a, int n)
STUB(setDisplayAttributes, VADriverContextP c, VADisplayAttribute *a, int n)

static VAStatus querySubpictureFormats(VADriverContextP ctx, VAImageFormat *list, unsigned *flags, unsigned *count) {
    (void)ctx, (void)list, (void)flags;
    *count = 0;
    return VA_STATUS_SUCCESS;
}

static VAStatus queryDisplayAttributes(VADriverContextP ctx, VADisplayAttribute *list, int *count) {
    (void)ctx, (void)list;
    *count = 0;
    return VA_STATUS_SUCCESS;
}

static VAStatus terminate(VADriverContextP ctx) {
    Driver *driver = driverOf(ctx);
    for (unsigned index = 0; index < MAX_OBJECTS; index++) {
        VAContextID context = CONTEXT_BASE + index;
        if (driver->objects[CONTEXTS][index]) destroyContext(ctx, context);
        VAImageID image = IMAGE_BASE + index;
        if (driver->objects[IMAGES][index]) destroyImage(ctx, image);
    }
    for (unsigned index = 0; index < MAX_OBJECTS; index++) {
        VASurfaceID surface = SURFACE_BASE + index;
        if (driver->objects[SURFACES][index]) destroySurfaces(ctx, &surface, 1);
        if (driver->objects[BUFFERS][index]) destroyBuffer(ctx, BUFFER_BASE + index);
        free(driver->objects[CONFIGS][index]);
    }
    pthread_mutex_destroy(&driver->lock);
    free(driver);
    ctx->pDriverData = NULL;
    return VA_STATUS_SUCCESS;
}

__attribute__((visibility("default"))) VAStatus DRIVER_INIT(VADriverContextP ctx);

VAStatus DRIVER_INIT(VADriverContextP ctx) {
    readFailures();
    if (failing.init) return VA_STATUS_ERROR_OPERATION_FAILED;
    Driver *driver = calloc(1, sizeof *driver);
    if (!driver) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    pthread_mutex_init(&driver->lock, NULL);
    ctx->pDriverData = driver;
    ctx->version_major = VA_MAJOR_VERSION;
    ctx->version_minor = VA_MINOR_VERSION;
    ctx->max_profiles = 8;
    ctx->max_entrypoints = 4;
    ctx->max_attributes = 8;
    ctx->max_image_formats = 1;
    ctx->max_subpic_formats = 1;
    ctx->max_display_attributes = 1;
    ctx->str_vendor = "Podium test VA driver (encodes with libx264)";
    struct VADriverVTable *vtable = ctx->vtable;
    *vtable = (struct VADriverVTable){
        .vaTerminate = terminate,
        .vaQueryConfigProfiles = queryProfiles,
        .vaQueryConfigEntrypoints = queryEntrypoints,
        .vaGetConfigAttributes = getConfigAttributes,
        .vaCreateConfig = createConfig,
        .vaDestroyConfig = destroyConfig,
        .vaQueryConfigAttributes = queryConfigAttributes,
        .vaCreateSurfaces = createSurfaces,
        .vaCreateSurfaces2 = createSurfaces2,
        .vaQuerySurfaceAttributes = querySurfaceAttributes,
        .vaDestroySurfaces = destroySurfaces,
        .vaCreateContext = createContext,
        .vaDestroyContext = destroyContext,
        .vaCreateBuffer = createBuffer,
        .vaBufferSetNumElements = setElements,
        .vaMapBuffer = mapBuffer,
        .vaUnmapBuffer = unmapBuffer,
        .vaDestroyBuffer = destroyBuffer,
        .vaBeginPicture = beginPicture,
        .vaRenderPicture = renderPicture,
        .vaEndPicture = endPicture,
        .vaSyncSurface = syncSurface,
        .vaSyncBuffer = syncBuffer,
        .vaQuerySurfaceStatus = querySurfaceStatus,
        .vaPutSurface = putSurface,
        .vaQueryImageFormats = queryImageFormats,
        .vaCreateImage = createImage,
        .vaDeriveImage = deriveImage,
        .vaDestroyImage = destroyImage,
        .vaSetImagePalette = setImagePalette,
        .vaGetImage = getImage,
        .vaPutImage = putImage,
        .vaQuerySubpictureFormats = querySubpictureFormats,
        .vaCreateSubpicture = createSubpicture,
        .vaDestroySubpicture = destroySubpicture,
        .vaSetSubpictureImage = setSubpictureImage,
        .vaSetSubpictureChromakey = setSubpictureChromakey,
        .vaSetSubpictureGlobalAlpha = setSubpictureGlobalAlpha,
        .vaAssociateSubpicture = associateSubpicture,
        .vaDeassociateSubpicture = deassociateSubpicture,
        .vaQueryDisplayAttributes = queryDisplayAttributes,
        .vaGetDisplayAttributes = getDisplayAttributes,
        .vaSetDisplayAttributes = setDisplayAttributes,
    };
    return VA_STATUS_SUCCESS;
}
