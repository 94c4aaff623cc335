// A video stream read from one PipeWire node (see cpipewire.h).
//
// libpipewire runs its own loop thread; every call into it from another thread holds the loop's
// lock. The stream asks for 32-bit BGRx or BGRA pictures, or a webcam's YUYV or JPEGs, of any size and rate, in buffers
// PipeWire maps for us (memfd or plain memory), with the damage and cursor metadata when the
// producer gives them.
#include "cpipewire.h"
#include "streams.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/buffer/meta.h>
#include <spa/param/video/format-utils.h>
#include <spa/utils/result.h>

// The changed rectangles a frame may carry; more are taken as the whole picture.
#define CPW_MAX_REGIONS 16

struct cpw_capture {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook core_listener;
    struct pw_stream *stream;
    struct spa_hook stream_listener;
    struct spa_video_info_raw info;
    int has_format;
    // The pictures are JPEGs (`info` then holds only their size).
    int is_jpeg;
    cpw_frame_handler on_frame;
    cpw_pointer_handler on_pointer;
    cpw_state_handler on_state;
    void *handler_context;
    // Set as it closes: the stream's own end is not reported.
    int closing;
    // The header's sequence number of the last frame handed on, and whether it is known: damage
    // says what changed since the frame before, so it holds only when none was missed between.
    uint64_t last_sequence;
    int sequence_known;
    // The pointer's image, converted for the handler.
    uint32_t cursor[CPW_CURSOR_MAX * CPW_CURSOR_MAX];
};

// The size of cursor metadata holding an image of `side` × `side` 32-bit pixels.
static int cursor_meta_size(int side) {
    return (int)(sizeof(struct spa_meta_cursor) + sizeof(struct spa_meta_bitmap)) + side * side * 4;
}

// Reads the cursor metadata, if the buffer has it, and hands it on: the pointer's place, and its
// picture (as premultiplied BGRA) when the producer sent one.
static void read_pointer(struct cpw_capture *capture, struct spa_buffer *spa) {
    struct spa_meta *meta = spa_buffer_find_meta(spa, SPA_META_Cursor);
    if (meta == NULL || meta->size < sizeof(struct spa_meta_cursor) || capture->on_pointer == NULL) return;
    struct spa_meta_cursor *cursor = meta->data;
    if (!spa_meta_cursor_is_valid(cursor)) {
        capture->on_pointer(capture->handler_context, 0, 0, 0, NULL, 0, 0, 0, 0);
        return;
    }
    const uint32_t *image = NULL;
    uint32_t width = 0, height = 0;
    // The picture is read only where the metadata holds all of it.
    struct spa_meta_bitmap *bitmap = cursor->bitmap_offset >= sizeof(*cursor)
        && (uint64_t)cursor->bitmap_offset + sizeof(struct spa_meta_bitmap) <= meta->size
        ? SPA_PTROFF(cursor, cursor->bitmap_offset, struct spa_meta_bitmap) : NULL;
    if (bitmap != NULL && bitmap->offset >= sizeof(*bitmap) && bitmap->size.width > 0
        && bitmap->size.width <= CPW_CURSOR_MAX && bitmap->size.height > 0 && bitmap->size.height <= CPW_CURSOR_MAX
        && bitmap->stride >= (int32_t)bitmap->size.width * 4
        && (uint64_t)cursor->bitmap_offset + bitmap->offset + (uint64_t)bitmap->stride * bitmap->size.height
           <= meta->size) {
        // Where each channel sits in a pixel's bytes, for the layouts producers send.
        int r, g, b, a;
        switch (bitmap->format) {
        case SPA_VIDEO_FORMAT_RGBA: r = 0; g = 1; b = 2; a = 3; break;
        case SPA_VIDEO_FORMAT_BGRA: b = 0; g = 1; r = 2; a = 3; break;
        case SPA_VIDEO_FORMAT_ARGB: a = 0; r = 1; g = 2; b = 3; break;
        case SPA_VIDEO_FORMAT_ABGR: a = 0; b = 1; g = 2; r = 3; break;
        default: r = g = b = a = -1; break;
        }
        if (a >= 0) {
            width = bitmap->size.width;
            height = bitmap->size.height;
            const uint8_t *rows = SPA_PTROFF(bitmap, bitmap->offset, const uint8_t);
            for (uint32_t y = 0; y < height; y++) {
                const uint8_t *pixel = rows + (size_t)y * (size_t)bitmap->stride;
                for (uint32_t x = 0; x < width; x++, pixel += 4) {
                    uint32_t alpha = pixel[a];
                    capture->cursor[y * width + x] = alpha << 24 | (pixel[r] * alpha / 255) << 16
                        | (pixel[g] * alpha / 255) << 8 | (pixel[b] * alpha / 255);
                }
            }
            image = capture->cursor;
        }
    }
    capture->on_pointer(capture->handler_context, 1, cursor->position.x, cursor->position.y, image, width, height,
                        cursor->hotspot.x, cursor->hotspot.y);
}

static uint32_t bytes_per_pixel(uint32_t format) {
    return format == SPA_VIDEO_FORMAT_YUY2 ? 2 : 4;
}

static void on_process(void *data) {
    struct cpw_capture *capture = data;
    struct pw_buffer *buffer = pw_stream_dequeue_buffer(capture->stream);
    if (buffer == NULL) return;
    struct spa_buffer *spa = buffer->buffer;
    struct spa_data *plane = &spa->datas[0];
    // A buffer may carry the pointer alone, its picture unchanged and left out.
    read_pointer(capture, spa);
    if (capture->is_jpeg) {
        // A JPEG says nothing of what changed; an empty or corrupted one is left out.
        int usable = plane->data != NULL && capture->has_format && plane->chunk->size > 0
            && !(plane->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED)
            && (uint64_t)plane->chunk->offset + plane->chunk->size <= plane->maxsize;
        if (usable) {
            capture->on_frame(capture->handler_context, (const uint8_t *)plane->data + plane->chunk->offset,
                              capture->info.size.width, capture->info.size.height, plane->chunk->size,
                              CPW_FORMAT_MJPG, NULL, 0);
        }
        capture->sequence_known = 0;
        pw_stream_queue_buffer(capture->stream, buffer);
        return;
    }
    uint32_t format = capture->info.format == SPA_VIDEO_FORMAT_BGRA ? CPW_FORMAT_BGRA
        : capture->info.format == SPA_VIDEO_FORMAT_YUY2 ? CPW_FORMAT_YUY2 : CPW_FORMAT_BGRX;
    uint32_t width = capture->info.size.width, height = capture->info.size.height;
    uint32_t pixel_bytes = bytes_per_pixel(capture->info.format);
    struct spa_meta_header *header = spa_buffer_find_meta_data(spa, SPA_META_Header, sizeof(*header));
    int corrupted = (header != NULL && (header->flags & SPA_META_HEADER_FLAG_CORRUPTED))
        || (plane->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED);
    // Some producers leave the stride out: rows are then packed.
    uint32_t stride = plane->chunk->stride > 0 ? (uint32_t)plane->chunk->stride : width * pixel_bytes;
    int whole = plane->data != NULL && capture->has_format && !corrupted
        && plane->chunk->offset + (uint64_t)stride * height <= plane->maxsize && stride >= width * pixel_bytes;
    if (whole) {
        cpw_region regions[CPW_MAX_REGIONS];
        uint32_t count = 0;
        int described = 0;
        struct spa_meta *damage = spa_buffer_find_meta(spa, SPA_META_VideoDamage);
        // A frame the producer made and this stream never saw (PipeWire keeps only the newest
        // for a late consumer) changed rows its successor's damage does not name.
        int consecutive = header != NULL && capture->sequence_known && header->seq == capture->last_sequence + 1;
        if (damage != NULL && consecutive) {
            struct spa_meta_region *region;
            described = 1;
            spa_meta_for_each(region, damage) {
                if (!spa_meta_region_is_valid(region)) break;
                if (count == CPW_MAX_REGIONS) { described = 0; break; }
                regions[count++] = (cpw_region){ region->region.position.x, region->region.position.y,
                                                 region->region.size.width, region->region.size.height };
            }
        }
        const uint8_t *pixels = (const uint8_t *)plane->data + plane->chunk->offset;
        capture->on_frame(capture->handler_context, pixels, width, height, stride, format,
                          described ? regions : NULL, count);
    }
    capture->sequence_known = whole && header != NULL;
    if (header != NULL) capture->last_sequence = header->seq;
    pw_stream_queue_buffer(capture->stream, buffer);
}

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
    struct cpw_capture *capture = data;
    if (param == NULL || id != SPA_PARAM_Format) return;
    uint32_t media_type, media_subtype;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video) return;
    memset(&capture->info, 0, sizeof capture->info);
    capture->has_format = 0;
    capture->is_jpeg = media_subtype == SPA_MEDIA_SUBTYPE_mjpg;
    if (capture->is_jpeg) {
        struct spa_video_info_mjpg jpeg;
        if (spa_format_video_mjpg_parse(param, &jpeg) < 0) return;
        capture->info.size = jpeg.size;
    } else if (media_subtype != SPA_MEDIA_SUBTYPE_raw || spa_format_video_raw_parse(param, &capture->info) < 0) {
        return;
    }
    capture->has_format = 1;

    // The buffers and metadata taken: mapped memory, a header, what changed, and the pointer.
    uint8_t room[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(room, sizeof room);
    const struct spa_pod *params[4];
    // A JPEG's length varies from picture to picture: room for the largest it can reasonably be
    // (as large as the picture in YUYV), or a producer sizing its buffers by its first JPEG cuts
    // the larger ones short.
    uint32_t stride = capture->is_jpeg ? 0 : capture->info.size.width * bytes_per_pixel(capture->info.format);
    int32_t jpeg_room = (int32_t)(capture->info.size.width * capture->info.size.height * 2);
    params[0] = capture->is_jpeg
        ? spa_pod_builder_add_object(&builder,
            SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
            SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 16),
            SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
            SPA_PARAM_BUFFERS_size, SPA_POD_Int(jpeg_room),
            SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr)))
        : spa_pod_builder_add_object(&builder,
            SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
            SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 16),
            SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
            SPA_PARAM_BUFFERS_size, SPA_POD_Int(stride * capture->info.size.height),
            SPA_PARAM_BUFFERS_stride, SPA_POD_Int(stride),
            SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr)));
    params[1] = spa_pod_builder_add_object(&builder,
        SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
        SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
    params[2] = spa_pod_builder_add_object(&builder,
        SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_VideoDamage),
        SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(sizeof(struct spa_meta_region) * CPW_MAX_REGIONS,
                                                      sizeof(struct spa_meta_region),
                                                      sizeof(struct spa_meta_region) * CPW_MAX_REGIONS));
    params[3] = spa_pod_builder_add_object(&builder,
        SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Cursor),
        SPA_PARAM_META_size, SPA_POD_CHOICE_RANGE_Int(cursor_meta_size(64), cursor_meta_size(1),
                                                      cursor_meta_size(CPW_CURSOR_MAX)));
    pw_stream_update_params(capture->stream, params, 4);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    struct cpw_capture *capture = data;
    if (!capture->closing) cpw_say_state(capture->on_state, capture->handler_context, state, error);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .param_changed = on_param_changed,
    .process = on_process,
};

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    struct cpw_capture *capture = data;
    if (!capture->closing) cpw_say_core_error(capture->on_state, capture->handler_context, id, res, message);
}

static const struct pw_core_events core_events = { PW_VERSION_CORE_EVENTS, .error = on_core_error };

static void fail(char *error, size_t size, const char *what) {
    snprintf(error, size, "%s: %s", what, strerror(errno));
}

// Fills `error` with what failed, and closes what was opened (its loop locked): NULL.
static cpw_capture *abandon(cpw_capture *capture, char *error, size_t size, const char *what) {
    fail(error, size, what);
    pw_thread_loop_unlock(capture->loop);
    cpw_capture_close(capture);
    return NULL;
}

cpw_capture *cpw_capture_open(int fd, uint32_t node, uint32_t width, uint32_t height, cpw_frame_handler on_frame,
                              cpw_pointer_handler on_pointer, cpw_state_handler on_state, void *context, char *error,
                              size_t error_size) {
    pw_init(NULL, NULL);
    struct cpw_capture *capture = calloc(1, sizeof *capture);
    if (capture == NULL) {
        if (fd >= 0) close(fd);
        fail(error, error_size, "out of memory");
        return NULL;
    }
    capture->on_frame = on_frame;
    capture->on_pointer = on_pointer;
    capture->on_state = on_state;
    capture->handler_context = context;
    capture->loop = pw_thread_loop_new("podium-pipewire", NULL);
    if (capture->loop == NULL) {
        if (fd >= 0) close(fd);
        fail(error, error_size, "cannot make PipeWire's loop");
        free(capture);
        return NULL;
    }
    capture->context = pw_context_new(pw_thread_loop_get_loop(capture->loop), NULL, 0);
    if (capture->context == NULL || pw_thread_loop_start(capture->loop) < 0) {
        if (fd >= 0) close(fd);
        fail(error, error_size, "cannot start PipeWire's loop");
        if (capture->context) pw_context_destroy(capture->context);
        pw_thread_loop_destroy(capture->loop);
        free(capture);
        return NULL;
    }
    pw_thread_loop_lock(capture->loop);
    capture->core = fd >= 0 ? pw_context_connect_fd(capture->context, fd, NULL, 0)
                            : pw_context_connect(capture->context, NULL, 0);
    if (capture->core == NULL) return abandon(capture, error, error_size, "cannot connect to PipeWire");
    pw_core_add_listener(capture->core, &capture->core_listener, &core_events, capture);
    capture->stream = pw_stream_new(capture->core, "podium",
        pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_MEDIA_ROLE, "Screen",
                          NULL));
    if (capture->stream == NULL) return abandon(capture, error, error_size, "cannot make a PipeWire stream");
    pw_stream_add_listener(capture->stream, &capture->stream_listener, &stream_events, capture);
    uint8_t room[2048];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(room, sizeof room);
    // Raw pixels first; JPEGs when that is all the producer sends. Any size, 1080p preferred, or
    // the one asked alone.
    struct spa_rectangle wanted = SPA_RECTANGLE(width, height), preferred = SPA_RECTANGLE(1920, 1080),
                         least = SPA_RECTANGLE(1, 1), most = SPA_RECTANGLE(8192, 8192);
    const struct spa_pod *formats[2];
    for (int jpeg = 0; jpeg < 2; jpeg++) {
        struct spa_pod_frame frame;
        spa_pod_builder_push_object(&builder, &frame, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
        spa_pod_builder_add(&builder, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
                            SPA_FORMAT_mediaSubtype, SPA_POD_Id(jpeg ? SPA_MEDIA_SUBTYPE_mjpg : SPA_MEDIA_SUBTYPE_raw),
                            0);
        if (!jpeg) {
            spa_pod_builder_add(&builder, SPA_FORMAT_VIDEO_format,
                                SPA_POD_CHOICE_ENUM_Id(4, SPA_VIDEO_FORMAT_BGRx, SPA_VIDEO_FORMAT_BGRx,
                                                       SPA_VIDEO_FORMAT_BGRA, SPA_VIDEO_FORMAT_YUY2), 0);
        }
        if (width > 0 && height > 0) {
            spa_pod_builder_add(&builder, SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&wanted), 0);
        } else {
            spa_pod_builder_add(&builder, SPA_FORMAT_VIDEO_size,
                                SPA_POD_CHOICE_RANGE_Rectangle(&preferred, &least, &most), 0);
        }
        spa_pod_builder_add(&builder, SPA_FORMAT_VIDEO_framerate,
                            SPA_POD_CHOICE_RANGE_Fraction(&SPA_FRACTION(0, 1), &SPA_FRACTION(0, 1),
                                                          &SPA_FRACTION(1000, 1)), 0);
        formats[jpeg] = spa_pod_builder_pop(&builder, &frame);
    }
    int connected = pw_stream_connect(capture->stream, PW_DIRECTION_INPUT, node,
                                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS, formats, 2);
    pw_thread_loop_unlock(capture->loop);
    if (connected < 0) {
        snprintf(error, error_size, "cannot connect to PipeWire node %u: %s", node, spa_strerror(connected));
        cpw_capture_close(capture);
        return NULL;
    }
    return capture;
}

void cpw_capture_close(cpw_capture *capture) {
    if (capture == NULL) return;
    cpw_shut(capture->loop, capture->context, capture->core, capture->stream, &capture->closing);
    free(capture);
}
